//! `[[bridge]]` in the operator's configuration: the external MCP servers cc-server mounts,
//! and the policy their tools get here. Only the operator writes it (`cc-server bridge
//! add|remove`, or by hand); no request can.
//!
//! ```toml
//! [[bridge]]
//! name = "docs"                         # letters, digits, '-': its tools are docs__<tool>
//! command = ["python3", "docs_server.py"]  # stdio: argv (the program on PATH, or a path)
//! env = { DOCS_ROOT = "/srv/docs" }     # its environment besides PATH, HOME and the locale
//! # or: url = "http://127.0.0.1:8000/mcp" and headers = { Authorization = "Bearer …" }
//! # transport = "sse"                 # a url's protocol: "streamable-http" or "sse" (the legacy
//! #                                   # HTTP+SSE one); absent: Streamable HTTP, then SSE if refused
//! timeout_secs = 60                     # one call's limit
//! workspaces = ["default"]              # the workspaces that see it (absent: every one, global)
//! modes = ["plan"]                      # restricted modes that may call its tools (chat always may)
//! approval = true                       # its tools ask for an approval (the default)
//! fence = false                         # its results' text fenced as untrusted data
//! prefix = "docs__"                     # the naming scheme (default "<name>__"; "" mounts bare)
//! [bridge.tools.search]                 # one tool's own policy
//! approval = false
//! read_only = true                      # the guardrails may treat it as read-only
//! modes = ["plan", "review"]
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::names;
use crate::mcp::policy::Mode;

/// One `[[bridge]]` table.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BridgeDecl {
    pub name: String,
    /// A stdio server: its argv.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub command: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// A Streamable HTTP server: its endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// How a server reached by url speaks (`None`: Streamable HTTP, falling back to SSE).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<HttpTransport>,
    #[serde(default = "default_timeout")]
    pub timeout_secs: u64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub workspaces: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modes: Vec<Mode>,
    #[serde(default = "yes")]
    pub approval: bool,
    #[serde(default)]
    pub fence: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tools: BTreeMap<String, ToolPolicy>,
}

/// `[bridge.tools.<tool>]`: one tool's policy, over its server's.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ToolPolicy {
    pub approval: Option<bool>,
    #[serde(default)]
    pub read_only: bool,
    pub modes: Option<Vec<Mode>>,
}

/// The two HTTP transports of MCP.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum HttpTransport {
    /// Streamable HTTP (protocol 2025-03-26 on): one endpoint, POST and GET.
    StreamableHttp,
    /// The legacy HTTP+SSE transport (2024-11-05): a GET opens the event stream, whose
    /// first event names where messages are POSTed.
    Sse,
}

impl HttpTransport {
    pub fn as_str(self) -> &'static str {
        match self {
            HttpTransport::StreamableHttp => "streamable-http",
            HttpTransport::Sse => "sse",
        }
    }
}

fn default_timeout() -> u64 {
    60
}

fn yes() -> bool {
    true
}

/// How a server is reached.
#[derive(Clone, Debug, PartialEq)]
pub enum Endpoint<'a> {
    Stdio { argv: &'a [String], env: &'a BTreeMap<String, String> },
    Http { url: &'a str, headers: &'a BTreeMap<String, String>, transport: Option<HttpTransport> },
}

impl BridgeDecl {
    /// A stdio server (what `bridge add NAME -- COMMAND ARG…` writes).
    pub fn stdio(name: &str, argv: Vec<String>) -> BridgeDecl {
        BridgeDecl::empty(name, argv, None)
    }

    /// An HTTP server (what `bridge add NAME --url URL` writes).
    pub fn http(
        name: &str,
        url: String,
        headers: BTreeMap<String, String>,
        transport: Option<HttpTransport>,
    ) -> BridgeDecl {
        BridgeDecl { headers, transport, ..BridgeDecl::empty(name, Vec::new(), Some(url)) }
    }

    fn empty(name: &str, command: Vec<String>, url: Option<String>) -> BridgeDecl {
        BridgeDecl {
            name: name.to_string(),
            command,
            env: BTreeMap::new(),
            url,
            headers: BTreeMap::new(),
            transport: None,
            timeout_secs: default_timeout(),
            workspaces: Vec::new(),
            modes: Vec::new(),
            approval: true,
            fence: false,
            prefix: None,
            tools: BTreeMap::new(),
        }
    }

    pub fn endpoint(&self) -> Endpoint<'_> {
        match &self.url {
            Some(url) => Endpoint::Http { url, headers: &self.headers, transport: self.transport },
            None => Endpoint::Stdio { argv: &self.command, env: &self.env },
        }
    }

    /// What its tools' names start with.
    pub fn prefix(&self) -> String {
        self.prefix.clone().unwrap_or_else(|| format!("{}{}", self.name, names::SEPARATOR))
    }

    /// Its tool set: `bridge:<name>`.
    pub fn set_name(&self) -> String {
        format!("bridge:{}", self.name)
    }

    /// The policy of its tool `tool` (its own name there).
    pub fn tool(&self, tool: &str) -> ToolPolicy {
        self.tools.get(tool).cloned().unwrap_or_default()
    }
}

/// Checks the `[[bridge]]` tables; the error names the table and the key.
pub fn check(decls: &[BridgeDecl]) -> Result<(), String> {
    for (i, d) in decls.iter().enumerate() {
        let at = format!("bridge[{i}] '{}'", d.name);
        if !names::valid_server_name(&d.name) {
            return Err(format!("{at}: name: 1 to 32 letters, digits and '-'"));
        }
        if decls[..i].iter().any(|o| o.name == d.name) {
            return Err(format!("{at}: name: another bridged server is named '{}' already", d.name));
        }
        match (&d.url, d.command.is_empty()) {
            (Some(_), false) => return Err(format!("{at}: command and url: give one (stdio or HTTP), not both")),
            (None, true) => return Err(format!("{at}: command or url: one is required")),
            (Some(u), true) if !(u.starts_with("http://") || u.starts_with("https://")) => {
                return Err(format!("{at}: url: an http(s) URL, not '{u}'"));
            }
            _ => {}
        }
        if d.url.is_none() && !d.headers.is_empty() {
            return Err(format!("{at}: headers: only for a server reached by url"));
        }
        if d.url.is_none() && d.transport.is_some() {
            return Err(format!("{at}: transport: only for a server reached by url"));
        }
        if d.url.is_some() && !d.env.is_empty() {
            return Err(format!("{at}: env: only for a server started by command"));
        }
        for k in d.headers.keys() {
            if reqwest::header::HeaderName::from_bytes(k.as_bytes()).is_err() {
                return Err(format!("{at}: headers.{k}: not an HTTP header name"));
            }
        }
        if d.timeout_secs == 0 {
            return Err(format!("{at}: timeout_secs: at least 1"));
        }
        if let Some(p) = &d.prefix {
            if !p.is_empty() && !names::valid_tool_name(p) {
                return Err(format!("{at}: prefix: letters, digits, '_', '.', '-' (or \"\" to mount bare)"));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(t: &str) -> Result<Vec<BridgeDecl>, String> {
        #[derive(Deserialize)]
        struct C {
            bridge: Vec<BridgeDecl>,
        }
        let c: C = toml::from_str(t).map_err(|e| e.to_string())?;
        check(&c.bridge)?;
        Ok(c.bridge)
    }

    #[test]
    fn a_stdio_and_an_http_server_with_their_policy() {
        let b = parse(
            r#"
[[bridge]]
name = "docs"
command = ["python3", "docs.py"]
env = { ROOT = "/x" }
modes = ["plan"]
[bridge.tools.search]
approval = false
read_only = true
[[bridge]]
name = "gh"
url = "http://127.0.0.1:9/mcp"
headers = { Authorization = "Bearer t" }
transport = "sse"
workspaces = ["default"]
fence = true
prefix = ""
"#,
        )
        .unwrap();
        assert_eq!(b[0].endpoint(), Endpoint::Stdio { argv: &b[0].command, env: &b[0].env });
        assert_eq!((b[0].prefix(), b[0].set_name(), b[0].timeout_secs), ("docs__".into(), "bridge:docs".into(), 60));
        assert!(b[0].approval && b[0].tool("search").read_only && b[0].tool("search").approval == Some(false));
        assert_eq!(b[0].modes, vec![Mode::Plan]);
        assert!(!b[0].tool("other").read_only && b[0].tool("other").approval.is_none());
        assert!(matches!(
            b[1].endpoint(),
            Endpoint::Http { url: "http://127.0.0.1:9/mcp", transport: Some(HttpTransport::Sse), .. }
        ));
        assert_eq!((b[1].prefix(), b[1].fence), (String::new(), true));
    }

    #[test]
    fn every_mistake_names_its_table_and_key() {
        let e = parse("[[bridge]]\nname = \"a_b\"\ncommand = [\"x\"]\n").unwrap_err();
        assert!(e.contains("bridge[0] 'a_b': name"), "{e}");
        let e = parse("[[bridge]]\nname = \"a\"\n").unwrap_err();
        assert!(e.contains("command or url"), "{e}");
        let e = parse("[[bridge]]\nname = \"a\"\ncommand = [\"x\"]\nurl = \"http://h/\"\n").unwrap_err();
        assert!(e.contains("not both"), "{e}");
        let e = parse("[[bridge]]\nname = \"a\"\nurl = \"ftp://h/\"\n").unwrap_err();
        assert!(e.contains("url: an http(s) URL"), "{e}");
        let e = parse("[[bridge]]\nname = \"a\"\ncommand = [\"x\"]\n[[bridge]]\nname = \"a\"\ncommand = [\"y\"]\n")
            .unwrap_err();
        assert!(e.contains("bridge[1] 'a': name: another"), "{e}");
        let e = parse("[[bridge]]\nname = \"a\"\ncommand = [\"x\"]\nmodes = [\"yolo\"]\n").unwrap_err();
        assert!(e.contains("yolo"), "{e}");
        let e = parse("[[bridge]]\nname = \"a\"\ncommand = [\"x\"]\ntimeout = 3\n").unwrap_err();
        assert!(e.contains("timeout"), "{e}");
        let e = parse("[[bridge]]\nname = \"a\"\ncommand = [\"x\"]\nheaders = { A = \"b\" }\n").unwrap_err();
        assert!(e.contains("headers: only for a server reached by url"), "{e}");
        let e = parse("[[bridge]]\nname = \"a\"\ncommand = [\"x\"]\ntransport = \"sse\"\n").unwrap_err();
        assert!(e.contains("transport: only for a server reached by url"), "{e}");
        let e = parse("[[bridge]]\nname = \"a\"\nurl = \"http://h/\"\ntransport = \"ws\"\n").unwrap_err();
        assert!(e.contains("unknown variant `ws`"), "{e}");
    }
}
