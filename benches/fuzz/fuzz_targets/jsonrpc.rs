//! The JSON-RPC layer of both HTTP transports (`cc_server::mcp::http::parse_jsonrpc`,
//! `duplicate_key`) on arbitrary bytes: no panic; an accepted message serializes back to
//! one that is accepted again; a text with a duplicate key is never accepted.
#![no_main]

use cc_server::mcp::http::{duplicate_key, parse_jsonrpc};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dup = duplicate_key(data);
    match parse_jsonrpc(data) {
        Ok(msg) => {
            assert!(dup.is_none(), "accepted a message with the key {dup:?} twice");
            let again = serde_json::to_vec(&msg).expect("an accepted message serializes");
            assert!(
                parse_jsonrpc(&again).is_ok(),
                "re-serialized message rejected: {}",
                String::from_utf8_lossy(&again)
            );
        }
        Err(e) => {
            assert!(e.code == -32700 || e.code == -32600, "code {}", e.code);
            assert!(!e.message.is_empty());
            assert!(e.id.is_null() || e.id.is_string() || e.id.is_number(), "id {}", e.id);
        }
    }
});
