//! `cc-server bridge add|list|remove|check`: the operator's list of bridged servers, kept in
//! the configuration file. `add` appends a `[[bridge]]` table and `remove` takes one out as
//! text, so the rest of the file (comments, order, other sections) stays as written.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};

use super::config::{self, BridgeDecl, HttpTransport};

#[derive(Args, Debug)]
pub struct BridgeArgs {
    #[command(subcommand)]
    pub command: BridgeCommand,
}

#[derive(Subcommand, Debug)]
pub enum BridgeCommand {
    /// Bridge a server: `add NAME -- COMMAND ARG…` (stdio) or `add NAME --url URL [--header K=V]`
    Add {
        /// Its name: letters, digits and '-'; its tools are mounted as NAME__<tool>
        name: String,
        /// An HTTP server's endpoint (Streamable HTTP, or the legacy HTTP+SSE one's event stream)
        #[arg(long, value_name = "URL", conflicts_with = "command")]
        url: Option<String>,
        /// A header sent with every HTTP request (repeatable)
        #[arg(long = "header", value_name = "K=V", requires = "url")]
        headers: Vec<String>,
        /// How the URL speaks; without it, Streamable HTTP is tried first, then SSE
        #[arg(long, value_enum, requires = "url")]
        transport: Option<TransportArg>,
        /// A variable of a stdio server's environment (repeatable)
        #[arg(long = "env", value_name = "K=V", conflicts_with = "url")]
        env: Vec<String>,
        /// A stdio server's command and its arguments (after `--`)
        #[arg(last = true, value_name = "COMMAND")]
        command: Vec<String>,
    },
    /// List the bridged servers
    List {
        #[arg(long)]
        json: bool,
    },
    /// Stop bridging a server
    Remove { name: String },
    /// Connect to each bridged server and print what it serves (and what is not mounted, why)
    Check,
}

/// `--transport`.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum TransportArg {
    /// Streamable HTTP (MCP 2025-03-26 and later)
    StreamableHttp,
    /// The legacy HTTP+SSE transport (MCP 2024-11-05)
    Sse,
}

impl From<TransportArg> for HttpTransport {
    fn from(t: TransportArg) -> HttpTransport {
        match t {
            TransportArg::StreamableHttp => HttpTransport::StreamableHttp,
            TransportArg::Sse => HttpTransport::Sse,
        }
    }
}

fn pairs(flag: &str, list: &[String]) -> Result<BTreeMap<String, String>> {
    list.iter()
        .map(|kv| {
            kv.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .with_context(|| format!("--{flag} {kv}: expected K=V"))
        })
        .collect()
}

/// A TOML basic string (JSON's escapes are TOML's).
fn quoted(s: &str) -> String {
    serde_json::to_string(s).expect("a string serializes")
}

fn inline_table(m: &BTreeMap<String, String>) -> String {
    let items: Vec<String> = m.iter().map(|(k, v)| format!("{} = {}", quoted(k), quoted(v))).collect();
    format!("{{ {} }}", items.join(", "))
}

/// The `[[bridge]]` table of `d`, as text.
pub fn render(d: &BridgeDecl) -> String {
    let mut s = format!("[[bridge]]\nname = {}\n", quoted(&d.name));
    if let Some(u) = &d.url {
        s.push_str(&format!("url = {}\n", quoted(u)));
        if let Some(t) = d.transport {
            s.push_str(&format!("transport = {}\n", quoted(t.as_str())));
        }
    } else {
        let argv: Vec<String> = d.command.iter().map(|a| quoted(a)).collect();
        s.push_str(&format!("command = [{}]\n", argv.join(", ")));
    }
    if !d.env.is_empty() {
        s.push_str(&format!("env = {}\n", inline_table(&d.env)));
    }
    if !d.headers.is_empty() {
        s.push_str(&format!("headers = {}\n", inline_table(&d.headers)));
    }
    s
}

/// `text` with `d`'s table appended.
pub fn append(text: &str, d: &BridgeDecl) -> String {
    let mut out = text.to_string();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(&render(d));
    out
}

/// Whether a line opens a table that is not part of a `[[bridge]]` table.
fn other_table(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with('[') && !t.starts_with("[bridge.") && !t.starts_with("[[bridge.") && t.trim_end() != "[[bridge]]"
}

/// `text` without the `[[bridge]]` table (and its `[bridge.…]` subtables) named `name`.
pub fn remove(text: &str, name: &str) -> Result<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() == "[[bridge]]" {
            let end = (i + 1..lines.len())
                .find(|&j| lines[j].trim() == "[[bridge]]" || other_table(lines[j]))
                .unwrap_or(lines.len());
            let block: String = lines[i..end].concat();
            let table: toml::Table = toml::from_str(&block).context("reading a [[bridge]] table")?;
            let this = table
                .get("bridge")
                .and_then(|b| b.as_array())
                .and_then(|a| a.first())
                .and_then(|t| t.get("name"))
                .and_then(|n| n.as_str());
            if this == Some(name) {
                return Ok([lines[..i].concat(), lines[end..].concat()].concat());
            }
            i = end;
        } else {
            i += 1;
        }
    }
    anyhow::bail!(crate::cli::BadInput(format!("no bridged server '{name}' in the configuration")))
}

fn decls_of(text: &str) -> Result<Vec<BridgeDecl>> {
    #[derive(serde::Deserialize)]
    struct Only {
        #[serde(default)]
        bridge: Vec<BridgeDecl>,
    }
    // Only the bridge tables matter here; the whole file was checked when it was loaded.
    let t: toml::Table = toml::from_str(text)?;
    let only: Only = toml::Value::Table(t.into_iter().filter(|(k, _)| k == "bridge").collect()).try_into()?;
    Ok(only.bridge)
}

/// Writes `text` to `path` if its bridge tables check; through a temporary file.
fn write_checked(path: &Path, text: &str) -> Result<()> {
    let decls = decls_of(text).with_context(|| format!("the edited configuration {}", path.display()))?;
    config::check(&decls).map_err(|e| anyhow::anyhow!(crate::cli::BadInput(e)))?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let tmp = path.with_extension("toml.tmp");
    std::fs::write(&tmp, text).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// Runs a `bridge` command on the configuration file at `path`.
pub fn run(path: &Path, setup: &crate::serve::Setup, a: BridgeArgs) -> Result<()> {
    let read = || match std::fs::read_to_string(path) {
        Ok(t) => Ok(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
    };
    match a.command {
        BridgeCommand::Add { name, url, headers, transport, env, command } => {
            let mut d = match url {
                Some(u) => BridgeDecl::http(&name, u, pairs("header", &headers)?, transport.map(Into::into)),
                None if command.is_empty() => anyhow::bail!(crate::cli::BadInput(
                    "bridge add NAME -- COMMAND ARG… (stdio) or bridge add NAME --url URL".into()
                )),
                None => BridgeDecl::stdio(&name, command),
            };
            d.env = pairs("env", &env)?;
            let text = read()?;
            if decls_of(&text)?.iter().any(|o| o.name == name) {
                anyhow::bail!(crate::cli::BadInput(format!(
                    "a bridged server is named '{name}' already (bridge remove {name} first)"
                )));
            }
            write_checked(path, &append(&text, &d))?;
            println!(
                "bridged '{name}' in {}: its tools are {}<tool>, on the tool set {}",
                path.display(),
                d.prefix(),
                d.set_name()
            );
        }
        BridgeCommand::Remove { name } => {
            let text = read()?;
            write_checked(path, &remove(&text, &name)?)?;
            println!("removed '{name}' from {}", path.display());
        }
        BridgeCommand::List { json } => {
            let list: Vec<_> = setup.config.bridge.iter().map(super::describe).collect();
            if json {
                println!("{}", serde_json::to_string_pretty(&serde_json::json!({ "servers": list }))?);
            } else if list.is_empty() {
                println!("no bridged servers");
            } else {
                for m in list {
                    let how = m.get("command").map(|c| format!("stdio: {c}")).or_else(|| {
                        let t = m.get("transport").map(|t| format!(" ({t})")).unwrap_or_default();
                        m.get("url").map(|u| format!("http: {u}{t}"))
                    });
                    println!(
                        "{}  {}  set={}  tools={}<tool>",
                        m["name"],
                        how.unwrap_or_default(),
                        m["set"],
                        m["prefix"]
                    );
                }
            }
        }
        BridgeCommand::Check => {
            let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
            let builtin = std::sync::Arc::new(crate::mcp::tools::registry());
            let report = rt.block_on(super::check(&setup.config.bridge, builtin));
            let mut failed = false;
            for c in report {
                match &c.tools {
                    Err(why) => {
                        failed = true;
                        println!("{}  {}  unreachable: {why}", c.name, c.endpoint);
                    }
                    Ok(tools) => {
                        println!(
                            "{}  {}  ok: {} tool(s), {} resource(s), {} prompt(s)",
                            c.name,
                            c.endpoint,
                            tools.len(),
                            c.resources,
                            c.prompts
                        );
                        for t in tools {
                            println!("    {t}");
                        }
                        for (t, why) in &c.skipped {
                            println!("    not mounted: {t}: {why}");
                        }
                    }
                }
            }
            rt.shutdown_timeout(std::time::Duration::from_secs(2));
            if failed {
                anyhow::bail!("a bridged server could not be reached");
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_and_remove_keep_the_rest_of_the_file() {
        let original = "# the operator's notes\n[runtimes]\nallow = [\"python3\"] # inline\n";
        let a = BridgeDecl::stdio("docs", vec!["python3".into(), "a \"q\".py".into()]);
        let mut b =
            BridgeDecl::http("gh", "http://127.0.0.1:1/mcp".into(), BTreeMap::from([("X-K".into(), "v".into())]), None);
        let c = BridgeDecl::http("old", "http://127.0.0.1:1/sse".into(), BTreeMap::new(), Some(HttpTransport::Sse));
        b.tools.insert("x".into(), Default::default());
        let text = append(&append(&append(original, &a), &c), &b);
        let mut with_sub = text.clone();
        with_sub.push_str("[bridge.tools.search]\napproval = false\n\n[health]\nmissing_after_secs = 5\n");
        let decls = decls_of(&with_sub).unwrap();
        assert_eq!(decls.len(), 3);
        assert_eq!((decls[1].transport, decls[2].transport), (Some(HttpTransport::Sse), None));
        assert_eq!(decls[0].command, vec!["python3", "a \"q\".py"]);
        assert_eq!(decls[2].headers["X-K"], "v");
        assert_eq!(decls[2].tool("search").approval, Some(false));
        let with_sub = remove(&with_sub, "old").unwrap();
        let without_gh = remove(&with_sub, "gh").unwrap();
        assert!(without_gh.starts_with(original), "{without_gh}");
        assert!(without_gh.contains("[health]\nmissing_after_secs = 5") && !without_gh.contains("bridge.tools"));
        assert_eq!(decls_of(&without_gh).unwrap().iter().map(|d| d.name.as_str()).collect::<Vec<_>>(), ["docs"]);
        let none = remove(&without_gh, "docs").unwrap();
        assert!(decls_of(&none).unwrap().is_empty() && none.starts_with(original));
        assert!(remove(&none, "docs").unwrap_err().to_string().contains("no bridged server 'docs'"));
    }
}
