//! cc-rigs: disposable machines driven for agents — browsers over W3C WebDriver, Docker
//! desktops, Android devices over ADB ([`android`]) and iOS simulators over WebDriverAgent
//! ([`ios`]), all through the same [`Rig`] trait.
//!
//! Main types:
//! - [`Rig`]: one machine of one [`SurfaceKind`]: its engine, display size, the process
//!   groups it started, a liveness probe and `close`. Each surface adds its own typed
//!   actions on its concrete type (`browser::BrowserRig::act(BrowserAction)`), reached
//!   from a pooled `Arc<dyn Rig>` with [`downcast`].
//! - [`pool::Pool`]: owns every rig. Rigs belong to (workspace, conversation): the first
//!   call of a conversation creates its rig, later calls reuse it; idle rigs are reaped; a
//!   maximum count is enforced; a dead driver marks its rig failed and the next call
//!   replaces it. The pool runs every rig on its own runtime, so a rig outlives the
//!   connection (and the runtime) of the call that made it; dropping the pool (server
//!   shutdown) closes every rig and kills every process group it ever started.
//! - [`output`]: the result rules shared by every surface: at most one PNG per result,
//!   scaled to fit 1366x768 with the scale reported (coordinates map back with
//!   [`output::Scaled::to_real`]); text from a machine fenced as untrusted data.
//!
//! ```no_run
//! # async fn demo() -> Result<(), cc_rigs::RigError> {
//! use cc_rigs::browser::{BrowserAction, BrowserOptions, BrowserRig, Engine};
//! use cc_rigs::pool::{Acquire, Pool, PoolConfig};
//! let pool = Pool::new(PoolConfig::default())?;
//! let opts = BrowserOptions::new(Engine::Chromium);
//! let lease = pool
//!     .acquire(Acquire::new("ws", "conversation-1", cc_rigs::SurfaceKind::Browser, Some("chromium")), move |_engine| {
//!         BrowserRig::launch_boxed(opts)
//!     })
//!     .await?;
//! let out = pool
//!     .run(&lease, |rig| async move {
//!         let b = cc_rigs::downcast::<BrowserRig>(rig).expect("a browser rig");
//!         b.act(BrowserAction::Navigate { url: "about:blank".into() }).await
//!     })
//!     .await?;
//! println!("{}", out.summary);
//! # Ok(()) }
//! ```

use std::any::Any;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde::Serialize;

pub mod android;
pub mod browser;
mod conn;
pub mod desktop;
pub mod device;
pub mod ios;
pub mod output;
pub mod pool;
pub mod procs;
#[cfg(feature = "test-doubles")]
pub mod testing;

/// A boxed future (object-safe async methods).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What kind of machine a rig is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum SurfaceKind {
    Browser,
    Desktop,
    Android,
    Ios,
}

impl SurfaceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SurfaceKind::Browser => "browser",
            SurfaceKind::Desktop => "desktop",
            SurfaceKind::Android => "android",
            SurfaceKind::Ios => "ios",
        }
    }
}

/// One disposable machine. Implementations own everything they start (driver processes
/// in their own process groups, a temporary profile, a container) and release it in
/// [`Rig::close`] — and, as a last resort, when dropped.
pub trait Rig: Send + Sync + 'static {
    fn surface(&self) -> SurfaceKind;
    /// `chromium`, `firefox`, `webkit`, a desktop image name, a device model, …
    fn engine(&self) -> &str;
    /// The display (viewport, screen) in real pixels.
    fn display(&self) -> (u32, u32);
    /// Process groups this rig started (killed on close; the pool kills them again on
    /// shutdown). Empty for rigs whose machine is not a local process (a container).
    fn process_groups(&self) -> Vec<i32>;
    /// Every live process the rig started, descendants that left its groups included
    /// (what must be gone after close).
    fn processes(&self) -> Vec<i32> {
        procs::family(&self.process_groups())
    }
    /// A cheap probe: does the machine still answer?
    fn alive(&self) -> BoxFuture<'_, bool>;
    /// Ends the machine and removes what it owns; idempotent.
    fn close(&self) -> BoxFuture<'_, ()>;
    /// For [`downcast`] to the surface's concrete type.
    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync>;
}

/// The concrete rig behind a pooled `Arc<dyn Rig>`, when it is a `T`.
pub fn downcast<T: Rig>(rig: Arc<dyn Rig>) -> Option<Arc<T>> {
    rig.into_any().downcast::<T>().ok()
}

/// What goes wrong with rigs. Every message says what to do next.
#[derive(Debug, thiserror::Error, Clone)]
pub enum RigError {
    /// A bad argument of an action: `field` is the argument at fault.
    #[error("{field}: {message}")]
    Invalid { field: &'static str, message: String },
    /// An element ref from an older snapshot, or one whose element is gone.
    #[error("{0}")]
    StaleRef(String),
    /// Nothing matched (a selector, a tab index, text that never appeared).
    #[error("{0}")]
    NotFound(String),
    /// No rig with this id in the workspace.
    #[error("{0}")]
    NoRig(String),
    /// The pool holds its maximum number of rigs.
    #[error("{0}")]
    Limit(String),
    /// A navigation (or redirect) left the rig's allowed origins.
    #[error("{0}")]
    Blocked(String),
    /// An action did not finish in time.
    #[error("{0}")]
    Timeout(String),
    /// The machine could not be started (a missing binary says which).
    #[error("{0}")]
    Start(String),
    /// The driver or machine died: the rig is marked failed and replaced on the next call.
    #[error("{0}")]
    Dead(String),
    /// The driver refused or failed an action.
    #[error("{0}")]
    Driver(String),
    /// The pool is shutting down.
    #[error("the rig pool is shut down")]
    ShutDown,
}

impl RigError {
    pub fn invalid(field: &'static str, message: impl Into<String>) -> RigError {
        RigError::Invalid { field, message: message.into() }
    }

    /// A short machine-readable kind: `invalid_input`, `stale_ref`, `not_found`, …
    pub fn kind(&self) -> &'static str {
        match self {
            RigError::Invalid { .. } => "invalid_input",
            RigError::StaleRef(_) => "stale_ref",
            RigError::NotFound(_) => "not_found",
            RigError::NoRig(_) => "no_rig",
            RigError::Limit(_) => "rig_limit",
            RigError::Blocked(_) => "blocked_origin",
            RigError::Timeout(_) => "timeout",
            RigError::Start(_) => "rig_start",
            RigError::Dead(_) => "rig_failed",
            RigError::Driver(_) => "driver",
            RigError::ShutDown => "shut_down",
        }
    }
}
