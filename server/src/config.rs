//! The operator's configuration file: what only the operator decides, never a request —
//! which programs an agent's runtime profile may start, how long a run may take, when a
//! silent agent counts as missing.
//!
//! `--config FILE` / `CC_CONFIG`, else `<data>/config.toml` when it exists, else the
//! defaults. Unknown keys are refused (a typo is an error naming it, not a silent default).
//!
//! ```toml
//! [runtimes]
//! # Programs a runtime profile's command may be (a name looked up on PATH, or a path).
//! allow = ["python3", "claude"]
//! # A run's wall-clock limit unless its profile says otherwise (seconds).
//! run_timeout_secs = 900
//! # Bytes of a run's output kept in its log.
//! log_bytes = 1048576
//! # Variables of the server's environment a run gets too (besides PATH, HOME, the locale).
//! pass_env = ["ANTHROPIC_API_KEY"]
//!
//! [health]
//! # Silence before an agent is "newly missing", then "offline" (seconds).
//! missing_after_secs = 120
//! offline_after_secs = 600
//!
//! [delegation]
//! # The deepest a delegated ticket may be in its lineage (delegate_ticket, delegate_task).
//! max_depth = 3
//!
//! # Mirror the tickets of these workspaces on GitHub Issues (absent: the store only).
//! [tickets.github]
//! repository = "owner/name"
//! workspaces = ["default"]
//! # GitHub Enterprise: https://HOST/api/v3
//! base_url = "https://api.github.com"
//! # The token: here, or (better) in the environment variable named by token_env.
//! token_env = "GITHUB_TOKEN"
//! # Agents' GitHub logins, for the issue's assignees.
//! assignees = { dev = "octocat" }
//!
//! # Browser rigs of an engine on a remote WebDriver endpoint (a Selenium Grid, a hosted
//! # service): url, headers on every request, capabilities passed through (crate::webdriver).
//! [webdriver.chromium]
//! url = "https://grid.example.com/wd/hub"
//! headers = { Authorization = "Bearer …" }
//! capabilities = { platformName = "linux" }
//!
//! # Pipelines: when an event matches a trigger, each run starts its agent (the event's
//! # workspace's agent of that name) with the brief; the run hands its result back with
//! # submit_output, validated against output_schema (JSON Schema 2020-12).
//! [[pipelines]]
//! name = "triage"
//! # Only these workspaces' events (absent: every workspace's).
//! workspaces = ["default"]
//! [[pipelines.triggers]]
//! # message.posted, run.ended, ticket.created, ticket.status_changed, ticket.closed
//! # (their fields: crate::pipelines::events::EVENT_TYPES, and docs/pipelines.md).
//! type = "ticket.created"
//! # Every filter must hold: a value (equality), { one_of = [..] }, or { glob = "..." }
//! # (strings; `*`, `?`, `[..]`, `{a,b}`). On a list field (labels) one element must match.
//! filters = { priority = { one_of = ["high", "urgent"] }, title = { glob = "*crash*" } }
//! [[pipelines.runs]]
//! agent = "triager"
//! # {{event.FIELD}} (a field of every trigger's type), {{event}} (the event as JSON),
//! # {{pipeline}}, {{trigger}}.
//! brief = "Triage {{event.key}}: {{event.title}}"
//! # Inline (a TOML table), or a JSON file's path relative to this file.
//! output_schema = "schemas/triage.json"
//! ```

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Deserialize;

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub runtimes: Runtimes,
    pub health: Health,
    pub delegation: Delegation,
    pub tickets: Tickets,
    /// `[[pipelines]]` as written (see [`PipelineDecl`]).
    #[serde(rename = "pipelines")]
    pub pipeline_decls: Vec<PipelineDecl>,
    /// The pipelines, checked and compiled from `pipeline_decls` when the file is loaded.
    #[serde(skip)]
    pub pipelines: Vec<crate::pipelines::Pipeline>,
    /// `[[bridge]]`: external MCP servers mounted into the registry (`crate::mcp::bridge::config`).
    pub bridge: Vec<crate::mcp::bridge::BridgeDecl>,
    /// `[webdriver.<engine>]`: browser rigs of that engine on a remote WebDriver endpoint
    /// (`crate::webdriver`; `--webdriver-url` and `--webdriver-header` add to it).
    pub webdriver: crate::webdriver::Section,
}

/// One `[[pipelines]]` table: triggers (an event type and filters on its fields) and the
/// runs a matching event starts. Checked by [`crate::pipelines::compile`]: every error names
/// the key (`pipelines[0] 'triage': triggers[1].filters.priority: …`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PipelineDecl {
    /// Unique among the pipelines: letters, digits, `-`, `_`, `.`.
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// The workspaces whose events it hears (empty: every workspace's).
    #[serde(default)]
    pub workspaces: Vec<String>,
    #[serde(default)]
    pub triggers: Vec<TriggerDecl>,
    #[serde(default)]
    pub runs: Vec<RunDecl>,
}

/// `[[pipelines.triggers]]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TriggerDecl {
    /// The event type (`ticket.created`, …).
    #[serde(rename = "type")]
    pub event: String,
    /// A name to show (default: its index).
    #[serde(default)]
    pub name: Option<String>,
    /// Field -> a value (equality), `{ one_of = [values] }` or `{ glob = "pattern" }`.
    #[serde(default)]
    pub filters: std::collections::BTreeMap<String, toml::Value>,
}

/// `[[pipelines.runs]]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunDecl {
    /// The agent to start, by its name in the event's workspace.
    pub agent: String,
    /// The brief's template (default: the event as JSON).
    #[serde(default)]
    pub brief: Option<String>,
    /// A JSON Schema (2020-12): a TOML table, or a JSON file's path relative to the config.
    pub output_schema: toml::Value,
}

/// Where tickets live besides the store.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Tickets {
    pub github: Option<GitHub>,
}

/// The GitHub Issues provider: the tickets of `workspaces` are mirrored as issues of
/// `repository` (each change, each comment), through an outbox that survives an outage.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GitHub {
    /// owner/name.
    pub repository: String,
    #[serde(default = "GitHub::default_workspaces")]
    pub workspaces: Vec<String>,
    /// The REST API's root (GitHub Enterprise: https://HOST/api/v3).
    #[serde(default = "GitHub::default_base_url")]
    pub base_url: String,
    /// The token itself (prefer `token_env`).
    #[serde(default)]
    pub token: Option<String>,
    /// The environment variable holding the token.
    #[serde(default = "GitHub::default_token_env")]
    pub token_env: String,
    /// Agent name -> GitHub login, for assignees (an unmapped agent is not assigned there).
    #[serde(default)]
    pub assignees: std::collections::BTreeMap<String, String>,
    /// One request's limit (seconds).
    #[serde(default = "GitHub::default_timeout")]
    pub timeout_secs: u64,
    /// How often the outbox is looked at for changes to retry (seconds).
    #[serde(default = "GitHub::default_sync_every")]
    pub sync_every_secs: u64,
    /// The longest Retry-After waited in place; a longer one schedules the next attempt.
    #[serde(default = "GitHub::default_max_wait")]
    pub max_wait_secs: u64,
}

impl GitHub {
    fn default_workspaces() -> Vec<String> {
        vec![crate::store::DEFAULT_WORKSPACE.to_string()]
    }
    fn default_base_url() -> String {
        "https://api.github.com".to_string()
    }
    fn default_token_env() -> String {
        "GITHUB_TOKEN".to_string()
    }
    fn default_timeout() -> u64 {
        10
    }
    fn default_sync_every() -> u64 {
        15
    }
    fn default_max_wait() -> u64 {
        60
    }

    /// The token: `token`, else `$token_env`; never from a request.
    pub fn resolve_token(&self) -> Result<String> {
        if let Some(t) = self.token.as_ref().filter(|t| !t.is_empty()) {
            return Ok(t.clone());
        }
        match std::env::var(&self.token_env) {
            Ok(t) if !t.is_empty() => Ok(t),
            _ => anyhow::bail!(
                "[tickets.github] needs a token: set the environment variable {} (token_env), or token in the server's config.toml",
                self.token_env
            ),
        }
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Runtimes {
    /// The programs a runtime profile may start.
    pub allow: Vec<String>,
    pub run_timeout_secs: u64,
    pub log_bytes: u64,
    /// Variables of the server's environment a run also gets (an API key its program needs),
    /// besides PATH, HOME, the locale and the like; nothing else of the server's reaches it.
    pub pass_env: Vec<String>,
}

impl Default for Runtimes {
    fn default() -> Self {
        Runtimes { allow: Vec::new(), run_timeout_secs: 900, log_bytes: 1 << 20, pass_env: Vec::new() }
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Health {
    pub missing_after_secs: u64,
    pub offline_after_secs: u64,
}

impl Default for Health {
    fn default() -> Self {
        Health { missing_after_secs: 120, offline_after_secs: 600 }
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Delegation {
    /// The deepest a delegated ticket may be: 1 under a ticket that was not delegated, and
    /// one more per hand-over.
    pub max_depth: u32,
}

impl Default for Delegation {
    fn default() -> Self {
        Delegation { max_depth: 3 }
    }
}

impl Config {
    /// The configuration: `explicit` (which must exist), else `<data>/config.toml` when it
    /// exists, else the defaults.
    pub fn load(explicit: Option<&Path>, data_root: &Path) -> Result<Config> {
        let path: Option<PathBuf> = match explicit {
            Some(p) => Some(p.to_path_buf()),
            None => Some(data_root.join("config.toml")).filter(|p| p.is_file()),
        };
        let Some(path) = path else { return Ok(Config::default()) };
        let text =
            std::fs::read_to_string(&path).with_context(|| format!("reading the configuration {}", path.display()))?;
        let mut c: Config = toml::from_str(&text).with_context(|| format!("the configuration {}", path.display()))?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        c.pipelines = crate::pipelines::compile(&c.pipeline_decls, &base)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        anyhow::ensure!(
            c.health.missing_after_secs < c.health.offline_after_secs,
            "{}: [health] missing_after_secs must be less than offline_after_secs",
            path.display()
        );
        anyhow::ensure!(
            c.runtimes.run_timeout_secs > 0,
            "{}: [runtimes] run_timeout_secs must be at least 1",
            path.display()
        );
        crate::mcp::bridge::config::check(&c.bridge).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        c.webdriver.check(false).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        if let Some(g) = &c.tickets.github {
            let parts: Vec<&str> = g.repository.split('/').collect();
            anyhow::ensure!(
                parts.len() == 2 && parts.iter().all(|p| !p.is_empty()),
                "{}: [tickets.github] repository is owner/name, not '{}'",
                path.display(),
                g.repository
            );
            anyhow::ensure!(
                g.base_url.starts_with("https://") || g.base_url.starts_with("http://"),
                "{}: [tickets.github] base_url is an http(s) URL, not '{}'",
                path.display(),
                g.base_url
            );
        }
        Ok(c)
    }

    /// Whether a profile may start `command`: it is on the allow-list as written, or its
    /// file name is and the list names it without a path.
    pub fn allows(&self, command: &str) -> bool {
        self.runtimes.allow.iter().any(|a| {
            a == command
                || (!a.contains('/')
                    && Path::new(command).file_name().and_then(|n| n.to_str()) == Some(a.as_str())
                    && !command.contains('/'))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_unknown_keys_and_the_allow_list() {
        let dir = tempfile::tempdir().unwrap();
        assert!(Config::load(None, dir.path()).unwrap().runtimes.allow.is_empty());
        std::fs::write(dir.path().join("config.toml"), "[runtimes]\nallow = [\"python3\", \"/opt/x/agent\"]\n")
            .unwrap();
        let c = Config::load(None, dir.path()).unwrap();
        assert!(c.allows("python3") && c.allows("/opt/x/agent"));
        assert!(!c.allows("/usr/bin/python3"), "a bare name allows the name on PATH, not any path");
        assert!(!c.allows("sh") && !c.allows("agent"));
        std::fs::write(dir.path().join("config.toml"), "[runtimes]\nalow = []\n").unwrap();
        let e = format!("{:#}", Config::load(None, dir.path()).unwrap_err());
        assert!(e.contains("alow"), "{e}");
        assert!(Config::load(Some(&dir.path().join("nope.toml")), dir.path()).is_err());
    }

    #[test]
    fn the_github_provider_is_the_operators_with_its_token_from_config_or_environment() {
        let dir = tempfile::tempdir().unwrap();
        let write = |t: &str| std::fs::write(dir.path().join("config.toml"), t).unwrap();
        write("[delegation]\nmax_depth = 5\n[tickets.github]\nrepository = \"acme/shop\"\ntoken_env = \"CC_TEST_GH_TOKEN_UNSET\"\n");
        let c = Config::load(None, dir.path()).unwrap();
        assert_eq!(c.delegation.max_depth, 5);
        let g = c.tickets.github.unwrap();
        assert_eq!(
            (g.base_url.as_str(), g.workspaces.clone()),
            ("https://api.github.com", vec!["default".to_string()])
        );
        let e = format!("{:#}", g.resolve_token().unwrap_err());
        assert!(e.contains("CC_TEST_GH_TOKEN_UNSET"), "{e}");
        let with = GitHub { token: Some("ghp_x".into()), ..g };
        assert_eq!(with.resolve_token().unwrap(), "ghp_x");
        write("[tickets.github]\nrepository = \"shop\"\n");
        let e = format!("{:#}", Config::load(None, dir.path()).unwrap_err());
        assert!(e.contains("owner/name"), "{e}");
        write("[tickets.github]\nrepository = \"a/b\"\nbase_url = \"ftp://x\"\n");
        assert!(format!("{:#}", Config::load(None, dir.path()).unwrap_err()).contains("base_url"));
    }

    #[test]
    fn pipelines_compile_at_load_and_every_error_names_its_key() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("schemas")).unwrap();
        std::fs::write(dir.path().join("schemas/triage.json"), r#"{"type": "object", "required": ["severity"]}"#)
            .unwrap();
        let ok = r#"
[[pipelines]]
name = "triage"
[[pipelines.triggers]]
type = "ticket.created"
filters = { priority = { one_of = ["high", "urgent"] }, title = { glob = "*crash*" }, team = "core" }
[[pipelines.runs]]
agent = "triager"
brief = "Triage {{event.key}}: {{event.title}}"
output_schema = "schemas/triage.json"
[[pipelines.runs]]
agent = "scribe"
output_schema = { type = "object", properties = { summary = { type = "string" } } }
"#;
        let write = |t: &str| std::fs::write(dir.path().join("config.toml"), t).unwrap();
        write(ok);
        let c = Config::load(None, dir.path()).unwrap();
        let p = &c.pipelines[0];
        assert_eq!((p.name.as_str(), p.triggers[0].filters.len(), p.runs.len()), ("triage", 3, 2));
        assert_eq!(p.runs[0].output_schema["required"][0], "severity");
        assert_eq!(p.runs[1].output_schema["properties"]["summary"]["type"], "string");
        let fails = |t: &str| {
            format!("{:#}", {
                write(t);
                Config::load(None, dir.path()).unwrap_err()
            })
        };
        let e = fails(&ok.replace("ticket.created", "ticket.made"));
        assert!(e.contains("pipelines[0] 'triage': triggers[0].type: unknown event type 'ticket.made'"), "{e}");
        let e = fails(&ok.replace("team = \"core\"", "teem = \"core\""));
        assert!(e.contains("triggers[0].filters.teem: ticket.created has no field 'teem'"), "{e}");
        let e = fails(&ok.replace("{ glob = \"*crash*\" }", "{ glob = \"[\" }"));
        assert!(e.contains("triggers[0].filters.title.glob: '[' is not a glob"), "{e}");
        let e = fails(&ok.replace("{ glob = \"*crash*\" }", "{ like = \"x\" }"));
        assert!(e.contains("filters.title: unknown filter 'like'"), "{e}");
        let e = fails(&ok.replace("{{event.title}}", "{{event.titel}}"));
        assert!(
            e.contains("runs[0].brief: {{event.titel}}: ticket.created (a trigger's type) has no field 'titel'"),
            "{e}"
        );
        let e = fails(&ok.replace("schemas/triage.json", "schemas/none.json"));
        assert!(e.contains("runs[0].output_schema: reading 'schemas/none.json'"), "{e}");
        // A schema that is not one fails the load naming the pipeline and the pointer in it.
        let e = fails(&ok.replace("summary = { type = \"string\" }", "summary = { type = \"text\" }"));
        assert!(e.contains("pipelines[0] 'triage': runs[1].output_schema: not a valid JSON Schema (2020-12) at '/properties/summary/type'"), "{e}");
        let e = fails(&format!("{ok}\n[[pipelines]]\nname = \"triage\"\n"));
        assert!(e.contains("pipelines[1] 'triage': name: another pipeline is named 'triage' already"), "{e}");
        let e = fails(&ok.replace("agent = \"scribe\"", "agent = \"scribe\"\nmodel = \"x\""));
        assert!(e.contains("model"), "{e}");
    }
}
