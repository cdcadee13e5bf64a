//! Tool-argument validation and the tools behind it, on an in-memory app over a small
//! indexed repository: a tool (by the first byte), a mode (the second), and arguments (the
//! rest, as JSON). Every registered tool's input schema validates the arguments
//! (`Dispatcher::validate`) without panicking; then the call goes through the dispatcher
//! (`tool::from_args`, scoping, policy, the handler) — but for the tools that would
//! start a machine (`*_use`) or that sleep on purpose, which are only validated. A call of a
//! product tool never fails `internal` (a handler panic would; a fixture's may, but not by
//! a panic), and an error always says something. `CC_FUZZ_SHOW=1` prints each input's call.
#![no_main]

use std::sync::OnceLock;

use cc_server::mcp::dispatch::{CallOutcome, Caller};
use cc_server::mcp::policy::Mode;
use cc_server::mcp::tool::ToolSet;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// Conformance fixtures that sleep on purpose.
const SLOW: &[&str] = &["test_tool_with_progress", "test_reconnection", "test_tool_with_logging"];

/// Every registered tool's name, sorted, and a name no tool has.
fn names() -> &'static [&'static str] {
    static N: OnceLock<Vec<&'static str>> = OnceLock::new();
    N.get_or_init(|| {
        let mut v: Vec<&'static str> = cc_fuzz::fixture().app.dispatcher.registry.all().map(|t| t.decl.name).collect();
        v.push("no_such_tool");
        v
    })
}

/// The tool an input names: its first chunk (length first) when that is a registered name,
/// else one chosen by the chunk's bytes. Seeds name their tool, so a tool added or renamed
/// leaves every other seed calling what it did; a mutated name still calls some tool.
fn tool(chunk: &[u8]) -> &'static str {
    let names = names();
    if let Some(n) = std::str::from_utf8(chunk).ok().and_then(|c| names.iter().find(|n| **n == c)) {
        return n;
    }
    let h = chunk.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3));
    names[(h % names.len() as u64) as usize]
}

fuzz_target!(|data: &[u8]| {
    let f = cc_fuzz::fixture();
    let mut input = cc_fuzz::Bytes(data);
    let name = tool(input.chunk());
    let mode = input.pick(&Mode::ALL[..]);
    let Ok(args) = serde_json::from_slice::<Value>(input.rest()) else { return };
    if std::env::var_os("CC_FUZZ_SHOW").is_some() {
        // What an input calls (to check the seeds after the registry changed).
        eprintln!("{name} in {mode}: {args}");
    }
    let dispatcher = &f.app.dispatcher;
    for tool in dispatcher.registry.all() {
        let _ = dispatcher.validate(tool, &args);
    }
    let Value::Object(args) = args else { return };
    if name.ends_with("_use") || SLOW.contains(&name) {
        return;
    }
    let caller = Caller::local(mode);
    let out = f.rt.block_on(dispatcher.call(
        f.app.services.clone(),
        &f.surface,
        &caller,
        name,
        Some(args.clone()),
        CancellationToken::new(),
        None,
    ));
    match out {
        CallOutcome::Unknown(n) => {
            let served = dispatcher.registry.get(&n).is_some_and(|t| f.surface.serves(t));
            assert!(!served, "{n} is served but was called unknown");
        }
        CallOutcome::Err(e) => {
            // The conformance fixtures report their own failures as `internal` (no client to
            // ask, test_error_handling on purpose); a handler panic is one for any tool.
            let fixture = dispatcher.registry.get(name).is_some_and(|t| matches!(t.decl.set, ToolSet::Extra(_)));
            let panicked = e.message.starts_with("the tool failed unexpectedly");
            assert!(
                e.error != "internal" || (fixture && !panicked),
                "{name}({}) failed internally: {}",
                Value::Object(args),
                e.message
            );
            assert!(!e.message.is_empty(), "{name}: an error without a message");
        }
        CallOutcome::Ok(out) => assert!(out.value.is_object() || out.value.is_null(), "{name}: {}", out.value),
    }
});
