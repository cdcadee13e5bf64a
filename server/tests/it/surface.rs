//! The MCP surface is a contract, kept per tool. Each tool's contract (name, title,
//! description, set, scope, action classes, approval, modes, annotations, input and output
//! schemas) is snapshotted to `testdata/tools/<tool>.json`, the policy derived from the
//! declarations to `testdata/policy.md`, the resource templates to
//! `testdata/mcp_resources.golden.json` (regenerate on purpose with `CC_UPDATE_GOLDEN=1`).
//! `testdata/frozen/<tool>.json` (a tool's input schema when it was first frozen) is never
//! regenerated: against it, tools may only be added and input schemas only extended — a
//! removed or renamed tool or field, a changed type, or a newly required field fails. A new
//! tool's frozen copy is written with `CC_FREEZE_NEW=1`, which never overwrites one.

use std::path::PathBuf;

use cc_server::mcp::resources::TEMPLATES;
use cc_server::mcp::surface::Surface;
use cc_server::mcp::tool::{ToolSet, NEVER_SERVED};
use serde_json::{json, Map, Value};

fn testdata(name: &str) -> PathBuf {
    cc_indexer::fixture::manifest_dir(env!("CARGO_MANIFEST_DIR")).join("testdata").join(name)
}

/// Every tool's input schema, by name.
fn surface_json() -> Value {
    let registry = cc_server::mcp::tools::registry();
    let tools: Map<String, Value> =
        registry.all().map(|t| (t.decl.name.to_string(), Value::Object(t.input_schema.clone()))).collect();
    Value::Object(tools)
}

/// The frozen input schemas, from `testdata/frozen/<tool>.json`, by name.
fn frozen_json() -> Value {
    let mut out = Map::new();
    for e in std::fs::read_dir(testdata("frozen")).unwrap().flatten() {
        let name = e.file_name().into_string().unwrap();
        let Some(tool) = name.strip_suffix(".json") else { continue };
        let v: Value = serde_json::from_str(&std::fs::read_to_string(e.path()).unwrap()).unwrap();
        out.insert(tool.to_string(), v);
    }
    Value::Object(out)
}

fn update() -> bool {
    std::env::var("CC_UPDATE_GOLDEN").is_ok_and(|v| v == "1")
}

fn resources_json() -> Value {
    json!(TEMPLATES.iter().map(|(uri, name, _)| json!({"uriTemplate": uri, "name": name})).collect::<Vec<_>>())
}

fn check_golden(name: &str, actual: &Value) {
    check_text(name, &(serde_json::to_string_pretty(actual).unwrap() + "\n"));
}

fn check_text(name: &str, text: &str) {
    let path = testdata(name);
    if update() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
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
fn each_tool_matches_its_contract_snapshot() {
    let registry = cc_server::mcp::tools::registry();
    let mut names = Vec::new();
    for t in registry.all() {
        check_golden(&format!("tools/{}.json", t.decl.name), &cc_server::mcp::surface::contract(t));
        names.push(format!("{}.json", t.decl.name));
    }
    // No snapshot of a tool that is gone: a removal is on purpose, with its file.
    for e in std::fs::read_dir(testdata("tools")).unwrap().flatten() {
        let f = e.file_name().into_string().unwrap();
        if !names.contains(&f) {
            assert!(update(), "testdata/tools/{f}: no such tool; remove the file if the tool was removed on purpose");
            std::fs::remove_file(e.path()).unwrap();
        }
    }
}

#[test]
fn the_policy_matches_its_snapshot() {
    let registry = cc_server::mcp::tools::registry();
    let tools: Vec<_> = registry.all().collect();
    check_text("policy.md", &cc_server::mcp::surface::policy_markdown(&tools));
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
    let now = surface_json();
    if std::env::var("CC_FREEZE_NEW").is_ok_and(|v| v == "1") {
        for (name, schema) in now.as_object().unwrap() {
            let path = testdata(&format!("frozen/{name}.json"));
            if !path.exists() {
                std::fs::write(&path, serde_json::to_string_pretty(schema).unwrap() + "\n").unwrap();
            }
        }
    }
    let frozen = frozen_json();
    let problems = check_extends(&frozen, &now);
    assert!(problems.is_empty(), "the surface broke its frozen contract:\n{}", problems.join("\n"));
    // Every tool is frozen from its first release on.
    let unfrozen: Vec<&String> = now.as_object().unwrap().keys().filter(|k| frozen.get(k.as_str()).is_none()).collect();
    assert!(unfrozen.is_empty(), "new tools without a frozen copy (write it with CC_FREEZE_NEW=1): {unfrozen:?}");
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
    let md = cc_server::mcp::surface::markdown(&tools);
    let path = cc_indexer::fixture::manifest_dir(env!("CARGO_MANIFEST_DIR")).join("../docs/mcp-tools.md");
    if std::env::var("CC_UPDATE_GOLDEN").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &md).unwrap();
        return;
    }
    let doc = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        doc == md,
        "docs/mcp-tools.md drifted from the server: regenerate with `cc-server tools --markdown > docs/mcp-tools.md`"
    );
}

#[test]
fn every_tool_has_a_description_and_object_schemas() {
    let registry = cc_server::mcp::tools::registry();
    // Every served tool has a description and an object input schema (clients refuse others).
    for t in registry.all() {
        assert!(!t.decl.description.is_empty(), "{} has no description", t.decl.name);
        assert_eq!(t.input_schema.get("type"), Some(&json!("object")), "{}", t.decl.name);
        // Product tools answer typed JSON: an output schema describing an object
        // (structuredContent is one).
        assert_eq!(
            t.output_schema.get("type"),
            Some(&json!("object")),
            "{} declares no object output schema",
            t.decl.name
        );
        // Every argument says what it is: its description is what a model reads.
        let props = t.input_schema.get("properties").and_then(|p| p.as_object());
        for (name, schema) in props.into_iter().flatten() {
            let described = schema.get("description").and_then(|d| d.as_str()).is_some_and(|d| !d.trim().is_empty());
            assert!(described, "{}: the argument `{name}` has no description", t.decl.name);
        }
    }
}

#[test]
fn tools_that_run_caller_code_are_never_served() {
    let registry = cc_server::mcp::tools::registry();
    let all_sets: Vec<&str> = ToolSet::ALL.iter().map(|s| s.as_str()).collect();
    for surface in [Surface::parse(None, true).unwrap(), Surface::parse(Some(&all_sets.join(",")), true).unwrap()] {
        for t in registry.all().filter(|t| surface.serves(t)) {
            assert!(!NEVER_SERVED.contains(&t.decl.name), "{} is served", t.decl.name);
        }
    }
    // No registered tool takes code to run. create_runtime_profile names a program (kept as
    // argv, never a shell string) that must be on the operator's allow-list, which no call
    // can extend (tests/mcp/test_agents.py, the runtime profiles test).
    for t in registry.all() {
        let props = t.input_schema.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
        for banned in ["script", "code", "command", "javascript", "eval"] {
            if (t.decl.name, banned) == ("create_runtime_profile", "command") {
                continue;
            }
            assert!(!props.contains_key(banned), "{} takes `{banned}`", t.decl.name);
        }
    }
}

#[test]
fn tool_sets_select_the_surface() {
    let registry = cc_server::mcp::tools::registry();
    let names = |s: &Surface| registry.all().filter(|t| s.serves(t)).map(|t| t.decl.name).collect::<Vec<_>>();
    let code = Surface::parse(Some("code"), false).unwrap();
    assert!(names(&code).contains(&"search_code"));
    assert!(!names(&code).contains(&"list_workspaces"));
    let all = Surface::parse(None, true).unwrap();
    assert!(!names(&all).iter().any(|n| n.starts_with("test_")), "--all-tools must not serve conformance fixtures");
    assert!(Surface::parse(Some("nope"), false).unwrap_err().contains("unknown tool set 'nope'"));
}

/// The surface fails closed: every tool is on a set, `--tools` serves exactly the sets it
/// names (the rigs, which start processes, are not served by `--tools code`), and with no
/// `--tools` the whole registry is.
#[test]
fn the_surface_serves_exactly_the_sets_named() {
    let registry = cc_server::mcp::tools::registry();
    let names = |s: &Surface| registry.all().filter(|t| s.serves(t)).map(|t| t.decl.name).collect::<Vec<_>>();
    let code = Surface::parse(Some("code"), false).unwrap();
    for t in registry.all() {
        assert_eq!(code.serves(t), t.decl.set == ToolSet::Code, "{}", t.decl.name);
    }
    assert!(!names(&code).contains(&"browser_use") && !names(&code).contains(&"rig_list"));
    let everything = Surface::parse(None, false).unwrap();
    assert_eq!(names(&everything).len(), registry.all().count(), "the default serves the whole registry");
    assert_eq!(Surface::parse(Some("default"), false).unwrap(), everything);
    let rigs = Surface::parse(Some("rigs,workspace"), false).unwrap();
    assert!(names(&rigs).contains(&"browser_use") && names(&rigs).contains(&"list_repos"));
    assert!(!names(&rigs).contains(&"search_code"));
}
