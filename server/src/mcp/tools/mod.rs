//! Every area's tools; each area registers its tools in one `register` function.
pub mod code;
pub mod conformance;
pub mod conversation;
pub mod discovery;
pub mod mobile;
pub mod rigs;
pub mod workspace;

use super::registry::Registry;

/// The full registry.
pub fn registry() -> Registry {
    let mut r = Registry::new();
    discovery::register(&mut r);
    conversation::register(&mut r);
    workspace::register(&mut r);
    code::register(&mut r);
    rigs::register(&mut r);
    mobile::register(&mut r);
    conformance::register(&mut r);
    r
}
