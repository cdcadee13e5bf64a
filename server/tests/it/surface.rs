//! The MCP surface is a contract. Every tool name and input schema, and every resource
//! template, is snapshotted to `testdata/*.golden.json` (regenerate on purpose with
//! `CC_UPDATE_GOLDEN=1`); `testdata/mcp_tools.frozen.json` is never regenerated: against
//! it, tools may only be added and input schemas only extended — a removed or renamed
//! tool or field, a changed type, or a newly required field fails.

use std::path::PathBuf;

use cc_server::mcp::registry::{Surface, NEVER_SERVED, TOOLSETS};
use cc_server::mcp::resources::TEMPLATES;
use serde_json::{json, Map, Value};

fn testdata(name: &str) -> PathBuf {
    cc_indexer::fixture::manifest_dir(env!("CARGO_MANIFEST_DIR")).join("testdata").join(name)
}

fn surface_json() -> Value {
    let registry = cc_server::mcp::tools::registry();
    let tools: Map<String, Value> =
        registry.all().map(|t| (t.name.to_string(), Value::Object(t.input_schema.clone()))).collect();
    Value::Object(tools)
}

fn resources_json() -> Value {
    json!(TEMPLATES.iter().map(|(uri, name, _)| json!({"uriTemplate": uri, "name": name})).collect::<Vec<_>>())
}

fn check_golden(name: &str, actual: &Value) {
    let path = testdata(name);
    let text = serde_json::to_string_pretty(actual).unwrap() + "\n";
    if std::env::var("CC_UPDATE_GOLDEN").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &text).unwrap();
        return;
    }
    let golden = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; create it with CC_UPDATE_GOLDEN=1", path.display()));
    assert!(
        golden == text,
        "the MCP surface changed ({name}). If on purpose, regenerate with CC_UPDATE_GOLDEN=1 and record why.\n--- golden\n{golden}\n--- now\n{text}"
    );
}

#[test]
fn tools_match_the_golden_snapshot() {
    check_golden("mcp_tools.golden.json", &surface_json());
}

#[test]
fn resource_templates_match_the_golden_snapshot() {
    check_golden("mcp_resources.golden.json", &resources_json());
}

/// Whether `now` extends `then`: same type, no property removed, every property
/// extending its old self, no newly required property.
fn extends(then: &Value, now: &Value, at: &str, problems: &mut Vec<String>) {
    let (Some(t), Some(n)) = (then.as_object(), now.as_object()) else {
        if then != now {
            problems.push(format!("{at}: changed from {then} to {now}"));
        }
        return;
    };
    if t.get("type") != n.get("type") {
        problems.push(format!("{at}: type changed from {:?} to {:?}", t.get("type"), n.get("type")));
    }
    let required = |o: &Map<String, Value>| -> Vec<String> {
        o.get("required")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
            .unwrap_or_default()
    };
    let (rt, rn) = (required(t), required(n));
    for r in &rn {
        if !rt.contains(r) {
            problems.push(format!("{at}: '{r}' became required"));
        }
    }
    let props = |o: &Map<String, Value>| o.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
    let (pt, pn) = (props(t), props(n));
    for (k, v) in &pt {
        match pn.get(k) {
            None => problems.push(format!("{at}/{k}: removed")),
            Some(nv) => extends(v, nv, &format!("{at}/{k}"), problems),
        }
    }
    if let (Some(it), Some(inn)) = (t.get("items"), n.get("items")) {
        extends(it, inn, &format!("{at}/items"), problems);
    }
}

fn check_extends(frozen: &Value, now: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    for (name, schema) in frozen.as_object().unwrap() {
        match now.get(name) {
            None => problems.push(format!("{name}: removed or renamed")),
            Some(s) => extends(schema, s, name, &mut problems),
        }
    }
    problems
}

#[test]
fn tools_only_extend_the_frozen_surface() {
    let frozen: Value =
        serde_json::from_str(&std::fs::read_to_string(testdata("mcp_tools.frozen.json")).unwrap()).unwrap();
    let problems = check_extends(&frozen, &surface_json());
    assert!(problems.is_empty(), "the surface broke its frozen contract:\n{}", problems.join("\n"));
}

#[test]
fn the_frozen_check_catches_breaking_changes() {
    let frozen = json!({"t": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a"]}});
    let ok = json!({"t": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}, "c": {"type": "string"}}, "required": ["a"]}, "u": {}});
    assert!(check_extends(&frozen, &ok).is_empty());
    let removed_tool = json!({"u": {}});
    assert_eq!(check_extends(&frozen, &removed_tool), ["t: removed or renamed"]);
    let removed_field = json!({"t": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}});
    assert_eq!(check_extends(&frozen, &removed_field), ["t/b: removed"]);
    let retyped = json!({"t": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a"]}});
    assert_eq!(check_extends(&frozen, &retyped).len(), 1);
    let newly_required = json!({"t": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a", "b"]}});
    assert_eq!(check_extends(&frozen, &newly_required), ["t: 'b' became required"]);
}

#[test]
fn docs_match_the_server() {
    let registry = cc_server::mcp::tools::registry();
    let surface = Surface::parse(None, true).unwrap();
    let tools: Vec<_> = registry.all().filter(|t| surface.serves(t)).collect();
    let md = cc_server::serve::markdown(&tools);
    let path = cc_indexer::fixture::manifest_dir(env!("CARGO_MANIFEST_DIR")).join("../docs/mcp-tools.md");
    if std::env::var("CC_UPDATE_GOLDEN").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &md).unwrap();
        return;
    }
    let doc = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(doc == md, "docs/mcp-tools.md drifted from the server: regenerate with `cc-server tools --markdown --all-tools > docs/mcp-tools.md`");
}

#[test]
fn every_table_names_registered_tools() {
    let registry = cc_server::mcp::tools::registry();
    assert_eq!(registry.unknown_names_in_tables(), Vec::<String>::new());
    // And every served tool has a description and an object input schema (clients refuse others).
    for t in registry.all() {
        assert!(!t.description.is_empty(), "{} has no description", t.name);
        assert_eq!(t.input_schema.get("type"), Some(&json!("object")), "{}", t.name);
        // An output schema, when declared, describes an object (structuredContent is one).
        if !t.output_schema.is_empty() {
            assert_eq!(t.output_schema.get("type"), Some(&json!("object")), "{}", t.name);
        } else {
            assert!(t.toolsets.contains(&"conformance"), "{} declares no output schema", t.name);
        }
    }
}

#[test]
fn tools_that_run_caller_code_are_never_served() {
    let registry = cc_server::mcp::tools::registry();
    let all_sets: Vec<&str> = TOOLSETS.iter().map(|(s, _)| *s).collect();
    for surface in [Surface::parse(None, true).unwrap(), Surface::parse(Some(&all_sets.join(",")), true).unwrap()] {
        for t in registry.all().filter(|t| surface.serves(t)) {
            assert!(!NEVER_SERVED.contains(&t.name), "{} is served", t.name);
        }
    }
    // No registered tool takes code to run.
    for t in registry.all() {
        let props = t.input_schema.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
        for banned in ["script", "code", "command", "javascript", "eval"] {
            assert!(!props.contains_key(banned), "{} takes `{banned}`", t.name);
        }
    }
}

#[test]
fn tool_sets_select_the_surface() {
    let registry = cc_server::mcp::tools::registry();
    let names = |s: &Surface| registry.all().filter(|t| s.serves(t)).map(|t| t.name).collect::<Vec<_>>();
    let code = Surface::parse(Some("code"), false).unwrap();
    assert!(names(&code).contains(&"search_code"));
    assert!(!names(&code).contains(&"list_workspaces"));
    let all = Surface::parse(None, true).unwrap();
    assert!(!names(&all).iter().any(|n| n.starts_with("test_")), "--all-tools must not serve conformance fixtures");
    assert!(Surface::parse(Some("nope"), false).unwrap_err().contains("unknown tool set 'nope'"));
}
