//! Which tools a server serves: "`--tools code,rigs` — and nothing else".
//!
//! Every tool is on one tool set (its [`Decl::set`](super::tool::Decl)); a surface serves
//! exactly the sets it names. By default that is every set of the registry (the spec: the
//! full registry is advertised in tools/list); `--tools` narrows it. Sets an extension
//! declares explicit-only (the conformance fixtures) are served only when named.

use super::tool::{Registry, ToolDef, ToolSet, NEVER_SERVED};

/// The sets `--tools` names, or every one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Surface {
    /// The selected sets' names, sorted.
    pub sets: Vec<String>,
}

/// A tool set an extension adds (the conformance fixtures): a name, and whether it is served
/// only when `--tools` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExtraSet {
    pub name: &'static str,
    pub explicit_only: bool,
}

impl Surface {
    /// `--tools a,b` (`default`: every built-in set; an unknown name is an error listing the
    /// known ones), or every built-in set when `tools` is `None`. `extra` are the sets
    /// extensions add. (`--all-tools` is the default and is kept as a no-op.)
    pub fn parse_with(tools: Option<&str>, extra: &[ExtraSet]) -> Result<Surface, String> {
        let builtin: Vec<String> = ToolSet::ALL.iter().map(|s| s.as_str().to_string()).collect();
        let mut sets: Vec<String> = match tools {
            None => builtin.clone(),
            Some(_) => Vec::new(),
        };
        for s in tools.unwrap_or_default().split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if s == "default" || s == "all" {
                sets.extend(builtin.iter().cloned());
            } else if builtin.iter().any(|b| b == s) || extra.iter().any(|e| e.name == s) {
                sets.push(s.to_string());
            } else {
                let mut known = builtin.clone();
                known.extend(extra.iter().map(|e| e.name.to_string()));
                return Err(format!("unknown tool set '{s}'; known sets: {}, default (all of them)", known.join(", ")));
            }
        }
        if tools.is_none() {
            sets.extend(extra.iter().filter(|e| !e.explicit_only).map(|e| e.name.to_string()));
        }
        sets.sort();
        sets.dedup();
        Ok(Surface { sets })
    }

    /// [`Surface::parse_with`] over the built-in sets only. `all` is the old `--all-tools`:
    /// every set, which is the default.
    pub fn parse(tools: Option<&str>, all: bool) -> Result<Surface, String> {
        let _ = all;
        Surface::parse_with(tools, &[])
    }

    /// Whether this surface names `set`.
    pub fn has(&self, set: &str) -> bool {
        self.sets.iter().any(|s| s == set)
    }

    /// Whether this surface serves `tool`.
    pub fn serves(&self, tool: &ToolDef) -> bool {
        !NEVER_SERVED.contains(&tool.decl.name) && self.has(tool.decl.set.as_str())
    }

    /// The tools of `registry` this surface serves, by name.
    pub fn served<'a>(&'a self, registry: &'a Registry) -> impl Iterator<Item = &'a ToolDef> + 'a {
        registry.all().filter(move |t| self.serves(t))
    }
}

// ---------------------------------------------------------------- rendered views of the surface

use serde_json::{json, Value};

use super::policy::{Mode, GUARDRAILS};
use super::tool::Modes;

/// The modes that may call a tool, by name.
pub fn mode_names(modes: Modes) -> Vec<&'static str> {
    Mode::ALL.into_iter().filter(|m| modes.allows(*m)).map(Mode::as_str).collect()
}

/// One tool's surface contract (`server/testdata/tools/<name>.json`; `cc-server tools
/// --json`): everything a client and the policy see of it.
pub fn contract(t: &ToolDef) -> Value {
    let d = &t.decl;
    let (read_only, destructive, open_world) = super::policy::hints(t);
    json!({
        "name": d.name,
        "title": d.title,
        "description": d.description,
        "set": d.set,
        "workspace_scope": d.scope,
        "action_classes": d.classes,
        "requires_approval": d.approval,
        "modes": mode_names(d.modes),
        "annotations": {
            "readOnlyHint": read_only,
            "destructiveHint": destructive,
            "idempotentHint": d.hints.idempotent,
            "openWorldHint": open_world,
        },
        "input_schema": t.input_schema,
        "output_schema": t.output_schema,
    })
}

fn code(names: &[&str]) -> String {
    if names.is_empty() {
        "—".to_string()
    } else {
        names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
    }
}

/// The policy derived from the declarations, as Markdown: what each mode may call, the
/// approvals, the guardrails (`server/testdata/policy.md`, and part of docs/mcp-tools.md).
pub fn policy_markdown(tools: &[&ToolDef]) -> String {
    let mut s = String::from(
        "## Policy\n\nDerived from the tools' declarations. A conversation (an MCP session) opens in the server's `--mode` (default chat) or the `Cc-Mode` header's, under the server's `--max-mode` ceiling; `set_mode` and `exit_plan_mode` change it, asking for an approval when they leave a restricted mode. A blocked call is refused with the reason.\n\n| Mode | Tools it may call |\n|---|---|\n| chat | every served tool |\n",
    );
    for m in [Mode::Plan, Mode::Review, Mode::Orchestrate] {
        let names: Vec<&str> = tools.iter().filter(|t| t.decl.modes.allows(m)).map(|t| t.decl.name).collect();
        s.push_str(&format!("| {m} | {} |\n", code(&names)));
    }
    let always: Vec<&str> =
        tools.iter().filter(|t| matches!(t.decl.modes, Modes::Always)).map(|t| t.decl.name).collect();
    s.push_str(&format!("\nAllowed in every mode: {}.\n", code(&always)));
    let approvals: Vec<&str> = tools.iter().filter(|t| t.decl.approval).map(|t| t.decl.name).collect();
    s.push_str(&format!("\nTools that require an approval: {}.\n", code(&approvals)));
    s.push_str("\nAction-class guardrails (prompt = asked through the confirmation port; denied when no approver is connected):\n\n| Class |");
    for m in Mode::ALL {
        s.push_str(&format!(" {m} |"));
    }
    s.push_str(" Hints | Tools |\n|---|---|---|---|---|---|---|\n");
    for row in GUARDRAILS {
        s.push_str(&format!("| {} |", row.class.as_str()));
        for d in row.by_mode {
            s.push_str(&format!(
                " {} |",
                serde_json::to_value(d).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
            ));
        }
        let mut hints = Vec::new();
        if row.destructive {
            hints.push("destructive");
        }
        if row.open_world {
            hints.push("open world");
        }
        let with: Vec<&str> =
            tools.iter().filter(|t| t.decl.classes.contains(&row.class)).map(|t| t.decl.name).collect();
        s.push_str(&format!(
            " {} | {} |\n",
            if hints.is_empty() { "—".to_string() } else { hints.join(", ") },
            code(&with)
        ));
    }
    s
}

/// The surface as Markdown: what docs/mcp-tools.md holds (served tools only).
pub fn markdown(tools: &[&ToolDef]) -> String {
    let mut s = String::from(
        "# MCP tools\n\nGenerated by `cc-server tools --markdown`; do not edit by hand (a test fails when this file drifts from the server).\n\n",
    );
    s.push_str("| Tool | Set | workspace_id | Modes | Approval | Action classes | Description |\n|---|---|---|---|---|---|---|\n");
    for t in tools {
        let d = &t.decl;
        let classes: Vec<&str> = d.classes.iter().map(|c| c.as_str()).collect();
        let modes = match d.modes {
            Modes::Always => "every mode".to_string(),
            m => mode_names(m).join(", "),
        };
        s.push_str(&format!(
            "| `{}` | {} | {} | {modes} | {} | {} | {} |\n",
            d.name,
            d.set,
            d.scope.as_str(),
            if d.approval { "required" } else { "—" },
            if classes.is_empty() { "—".to_string() } else { classes.join(", ") },
            d.description.replace('|', "\\|")
        ));
    }
    s.push('\n');
    s.push_str(&policy_markdown(tools));
    for t in tools {
        let d = &t.decl;
        s.push_str(&format!("\n## `{}`\n\n{}\n\nArguments:\n\n", d.name, d.description));
        let props = t.input_schema.get("properties").and_then(|p| p.as_object());
        let required: Vec<&str> = t
            .input_schema
            .get("required")
            .and_then(|r| r.as_array())
            .map(|r| r.iter().filter_map(|v| v.as_str()).collect())
            .unwrap_or_default();
        match props {
            Some(p) if !p.is_empty() => {
                for (name, schema) in p {
                    let ty = schema.get("type").map(|t| t.to_string().replace('"', "")).unwrap_or_else(|| "any".into());
                    let desc = schema.get("description").and_then(|d| d.as_str()).unwrap_or("").replace('\n', " ");
                    let req = if required.contains(&name.as_str()) { "required" } else { "optional" };
                    s.push_str(&format!("- `{name}` ({ty}, {req}): {desc}\n"));
                }
            }
            _ => s.push_str("- none\n"),
        }
    }
    s
}
