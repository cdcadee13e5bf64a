//! Every area's tools: one folder per area, one file per tool, and each area's `tools()`
//! adding its tools to the registry with one line each.
pub mod agents;
pub mod artifacts;
pub mod code;
pub mod conversation;
pub mod discovery;
pub mod feeds;
pub mod governance;
pub mod memory;
pub mod messaging;
pub mod orchestration;
pub mod pipelines;
pub mod plans;
pub mod reviews;
pub mod rigs;
pub mod skills;
pub mod tickets;
pub mod workspace;

use super::tool::Registry;

/// The product's registry: every area's tools.
pub fn registry() -> Registry {
    let mut r = Registry::new();
    discovery::tools(&mut r);
    conversation::tools(&mut r);
    workspace::tools(&mut r);
    code::tools(&mut r);
    rigs::tools(&mut r);
    agents::tools(&mut r);
    messaging::tools(&mut r);
    feeds::tools(&mut r);
    tickets::tools(&mut r);
    governance::tools(&mut r);
    skills::tools(&mut r);
    memory::tools(&mut r);
    pipelines::tools(&mut r);
    orchestration::tools(&mut r);
    reviews::tools(&mut r);
    plans::tools(&mut r);
    artifacts::tools(&mut r);
    r
}
