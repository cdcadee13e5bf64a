//! What a run's process is started with: its argv (from the profile's family), its
//! environment, its stdin, its MCP client configuration file.

use std::path::{Path, PathBuf};

use crate::config::Config;
use crate::store::{Agent, Family, Run, RuntimeProfile};

/// Variables of the server's environment a run gets (everything else is left out: the
/// server's tokens and store URL never reach an agent), besides `[runtimes] pass_env`.
pub const PASSED_ENV: &[&str] =
    &["PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TMPDIR", "TZ"];

/// How to start one run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// argv: the program, then its arguments (never a shell string).
    pub argv: Vec<String>,
    pub env: Vec<(String, String)>,
    /// Written to the process's stdin, which is then closed.
    pub stdin: String,
    /// The MCP client configuration written for the run (`CC_MCP_CONFIG`): where, what.
    pub mcp_config: (PathBuf, String),
}

impl Launch {
    pub fn new(
        profile: &RuntimeProfile,
        agent: &Agent,
        run: &Run,
        endpoint: &str,
        token: &str,
        dir: &Path,
        config: &Config,
    ) -> Launch {
        let config_path = dir.join("mcp.json");
        let mcp_config = serde_json::json!({
            "mcpServers": {
                "cc-server": {
                    "type": "http",
                    "url": endpoint,
                    "headers": { "Authorization": format!("Bearer {token}") }
                }
            }
        });
        let mut argv = vec![profile.command.clone()];
        match profile.family {
            Family::McpCli => argv.extend(profile.args.iter().cloned()),
            Family::ClaudeCode => {
                argv.extend(["-p".to_string(), run.brief.clone(), "--mcp-config".to_string()]);
                argv.push(config_path.display().to_string());
                argv.extend(profile.args.iter().cloned());
            }
        }
        let mut env: Vec<(String, String)> = Vec::new();
        let pass: Vec<&str> =
            PASSED_ENV.iter().copied().chain(config.runtimes.pass_env.iter().map(String::as_str)).collect();
        for k in pass {
            if let Ok(v) = std::env::var(k) {
                env.push((k.to_string(), v));
            }
        }
        let mut set = |k: &str, v: &str| env.push((k.to_string(), v.to_string()));
        set("CC_BRIEF", &run.brief);
        set("CC_MCP_URL", endpoint);
        set("CC_MCP_TOKEN", token);
        set("CC_MCP_CONFIG", &config_path.display().to_string());
        set("CC_WORKSPACE_ID", &run.workspace_id);
        set("CC_AGENT_NAME", &agent.name);
        set("CC_AGENT_ID", &agent.id);
        set("CC_RUN_ID", &run.id);
        if let Some(s) = &run.space_id {
            set("CC_SPACE_ID", s);
        }
        if let Some(m) = &run.message_id {
            set("CC_MESSAGE_ID", m);
        }
        if let Some(t) = &run.ticket_id {
            set("CC_TICKET_ID", t);
        }
        Launch { argv, env, stdin: run.brief.clone(), mcp_config: (config_path, mcp_config.to_string()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::RunStatus;

    fn fixtures(family: Family) -> (RuntimeProfile, Agent, Run) {
        let p = RuntimeProfile {
            id: "rp-1".into(),
            workspace_id: "w".into(),
            name: "claude".into(),
            family,
            command: "claude".into(),
            args: vec!["--allowedTools".into(), "mcp__cc-server__*".into()],
            wake_on_message: false,
            timeout_secs: 60,
            created_by: "operator".into(),
            created_at: 0,
        };
        let a = Agent {
            id: "ag-1".into(),
            workspace_id: "w".into(),
            name: "reviewer".into(),
            profile_id: "rp-1".into(),
            skills: vec![],
            description: String::new(),
            reports_to: None,
            capacity: 1,
            autonomy: 1,
            created_at: 0,
        };
        let r = Run {
            id: "run-1".into(),
            workspace_id: "w".into(),
            agent_id: "ag-1".into(),
            status: RunStatus::Queued,
            reason: "ask".into(),
            brief: "Review the diff; say \"ship\" or \"hold\"; $(rm -rf /)".into(),
            space_id: Some("sp-1".into()),
            message_id: Some("msg-1".into()),
            ticket_id: None,
            created_at: 0,
            started_at: None,
            ended_at: None,
            host: None,
            server_pid: None,
            server_started: None,
            pid: None,
            proc_started: None,
            exit_code: None,
            error: None,
            log_tail: None,
            kept: vec![],
        };
        (p, a, r)
    }

    #[test]
    fn claude_code_gets_the_brief_and_the_config_as_arguments() {
        let (p, a, r) = fixtures(Family::ClaudeCode);
        let l = Launch::new(
            &p,
            &a,
            &r,
            "http://127.0.0.1:9030/mcp",
            "ccr-secret",
            Path::new("/runs/run-1"),
            &Config::default(),
        );
        assert_eq!(
            l.argv,
            [
                "claude",
                "-p",
                "Review the diff; say \"ship\" or \"hold\"; $(rm -rf /)",
                "--mcp-config",
                "/runs/run-1/mcp.json",
                "--allowedTools",
                "mcp__cc-server__*"
            ]
        );
        let cfg: serde_json::Value = serde_json::from_str(&l.mcp_config.1).unwrap();
        assert_eq!(cfg["mcpServers"]["cc-server"]["url"], "http://127.0.0.1:9030/mcp");
        assert_eq!(cfg["mcpServers"]["cc-server"]["headers"]["Authorization"], "Bearer ccr-secret");
    }

    #[test]
    fn mcp_cli_gets_its_fixed_arguments_and_the_environment() {
        let (mut p, a, r) = fixtures(Family::McpCli);
        p.command = "python3".into();
        p.args = vec!["agent.py".into(), "--echo".into()];
        let l = Launch::new(&p, &a, &r, "http://127.0.0.1:1/mcp", "ccr-t", Path::new("/r"), &Config::default());
        assert_eq!(l.argv, ["python3", "agent.py", "--echo"]);
        assert_eq!(l.stdin, r.brief);
        let env: std::collections::HashMap<_, _> = l.env.iter().cloned().collect();
        for (k, v) in [
            ("CC_BRIEF", r.brief.as_str()),
            ("CC_MCP_URL", "http://127.0.0.1:1/mcp"),
            ("CC_MCP_TOKEN", "ccr-t"),
            ("CC_MCP_CONFIG", "/r/mcp.json"),
            ("CC_WORKSPACE_ID", "w"),
            ("CC_AGENT_NAME", "reviewer"),
            ("CC_RUN_ID", "run-1"),
            ("CC_SPACE_ID", "sp-1"),
            ("CC_MESSAGE_ID", "msg-1"),
        ] {
            assert_eq!(env.get(k).map(String::as_str), Some(v), "{k}");
        }
        assert!(!env.contains_key("CC_TOKEN") && !env.contains_key("CC_STORE_URL"));
    }
}
