//! The assembled server: the services, the dispatcher over the registry, and the extension
//! (if any) — what the transports (`mcp::service`, `mcp::http`, `mcp::sse`) hold. Tools never
//! see it: a handler gets the services through its context.

use std::sync::Arc;

use crate::mcp::dispatch::Dispatcher;
use crate::mcp::extension::Extension;
use crate::mcp::surface::{ExtraSet, Surface};
use crate::mcp::tool::Registry;
use crate::services::Services;

pub struct App {
    pub services: Arc<Services>,
    pub dispatcher: Dispatcher,
    /// What the server adds beside its tools (the conformance fixtures in their test binary).
    pub extension: Option<Arc<dyn Extension>>,
}

impl App {
    /// The server over `registry` (its extension's tools added to it).
    pub fn new(services: Services, mut registry: Registry, extension: Option<Arc<dyn Extension>>) -> App {
        if let Some(e) = &extension {
            e.register(&mut registry);
        }
        App { services: Arc::new(services), dispatcher: Dispatcher::new(registry), extension }
    }

    /// Mounts the bridged servers of `[[bridge]]` over the registry (connected by
    /// [`crate::mcp::bridge::Bridge::start`]).
    pub fn with_bridge(mut self, decls: &[crate::mcp::bridge::BridgeDecl]) -> App {
        if !decls.is_empty() {
            let b = crate::mcp::bridge::Bridge::new(decls, self.dispatcher.registry.clone());
            self.dispatcher.bridge = Some(b);
        }
        self
    }

    /// The tool sets the extension and the bridged servers add.
    pub fn extra_sets(&self) -> Vec<ExtraSet> {
        let mut sets = self.extension.as_ref().map(|e| e.sets()).unwrap_or_default();
        if let Some(b) = &self.dispatcher.bridge {
            sets.extend(b.sets());
        }
        sets
    }

    /// `--tools` on this server (its extension's sets known too).
    pub fn surface(&self, tools: Option<&str>) -> Result<Surface, String> {
        Surface::parse_with(tools, &self.extra_sets())
    }

    /// The extension, when a session serving `surface` uses it.
    pub fn extension_for(&self, surface: &Surface) -> Option<&Arc<dyn Extension>> {
        self.extension.as_ref().filter(|e| e.active(surface))
    }
}
