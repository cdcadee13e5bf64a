//! The desktop as a pooled [`Rig`]: its engine is the image it runs, it owns no local
//! process (the container is its machine), it is alive while its container runs, and
//! `close` removes the container.

use std::any::Any;
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use super::{cleanup_orphans, Desktop, DesktopConfig, DesktopError};
use crate::{BoxFuture, Rig, RigError, SurfaceKind};

impl Rig for Desktop {
    fn surface(&self) -> SurfaceKind {
        SurfaceKind::Desktop
    }

    fn engine(&self) -> &str {
        &self.image
    }

    fn display(&self) -> (u32, u32) {
        self.display_size()
    }

    fn process_groups(&self) -> Vec<i32> {
        Vec::new()
    }

    fn alive(&self) -> BoxFuture<'_, bool> {
        Box::pin(self.is_running())
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            if let Err(e) = Desktop::close(self).await {
                tracing::warn!(container = %self.id, "closing a desktop rig: {e}");
            }
        })
    }

    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync> {
        self
    }
}

/// The engines on which this process has removed the desktops that crashed servers left behind.
static ORPHANS_SWEPT: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

impl Desktop {
    /// The pool's factory: connects to the config's engine, removes orphaned desktops of
    /// dead servers (once per engine and process), and starts a desktop.
    pub fn launch_boxed(config: DesktopConfig) -> BoxFuture<'static, Result<Arc<dyn Rig>, RigError>> {
        Box::pin(async move {
            let docker = config.engine.connect().await?;
            let first = ORPHANS_SWEPT.lock().expect("orphans lock").insert(config.engine.host.clone());
            if first {
                match cleanup_orphans(&docker).await {
                    Ok(gone) if !gone.is_empty() => {
                        tracing::info!(count = gone.len(), "removed desktop containers of servers that are gone")
                    }
                    Ok(_) => {}
                    Err(e) => tracing::warn!("removing orphaned desktop containers: {e}"),
                }
            }
            let desktop = Desktop::start(&docker, config).await?;
            Ok(Arc::new(desktop) as Arc<dyn Rig>)
        })
    }
}

impl From<DesktopError> for RigError {
    fn from(e: DesktopError) -> RigError {
        let message = e.to_string();
        match e {
            DesktopError::BadInput { pointer, message } => RigError::Invalid { field: field_of(&pointer), message },
            DesktopError::DockerUnavailable { .. } | DesktopError::ImageMissing { .. } | DesktopError::Start(_) => {
                RigError::Start(message)
            }
            DesktopError::Build(_) => RigError::Start(message),
            DesktopError::Timeout { .. } => RigError::Timeout(message),
            DesktopError::Closed { .. } | DesktopError::Gone { .. } => RigError::Dead(message),
            DesktopError::ActionFailed { .. } | DesktopError::Docker(_) | DesktopError::Io(_) => {
                RigError::Driver(message)
            }
        }
    }
}

/// `RigError::Invalid` names its field with a `&'static str`: the fields an action has.
fn field_of(pointer: &str) -> &'static str {
    const FIELDS: &[&str] = &[
        "action",
        "x",
        "y",
        "to_x",
        "to_y",
        "button",
        "clicks",
        "direction",
        "amount",
        "text",
        "keys",
        "width",
        "height",
        "seconds",
    ];
    let name = pointer.trim_start_matches('/');
    FIELDS.iter().copied().find(|f| *f == name).unwrap_or("action")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_input_keeps_its_field() {
        let e: RigError = DesktopError::bad("/to_x", "off screen").into();
        assert_eq!(e.kind(), "invalid_input");
        assert!(matches!(e, RigError::Invalid { field: "to_x", .. }), "{e:?}");
        let e: RigError = DesktopError::bad("/nonsense", "x").into();
        assert!(matches!(e, RigError::Invalid { field: "action", .. }), "{e:?}");
        let e: RigError = DesktopError::Gone { id: "c".into(), reason: "removed".into() }.into();
        assert_eq!(e.kind(), "rig_failed");
    }
}
