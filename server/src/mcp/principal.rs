//! Principals: who a request comes from. With tokens configured, every HTTP request is
//! authenticated by its bearer token (sessions never are the authentication); each token
//! names a principal and the workspaces it may see. Without tokens (loopback, stdio) the
//! one principal sees every workspace.

use std::path::Path;
use std::sync::Arc;

use anyhow::{bail, Context, Result};

/// Who a call comes from, and which workspaces it may see.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Principal {
    /// Unique among principals: a token's name, `local`, `operator`, or `AGENT@WORKSPACE`.
    pub name: Arc<str>,
    /// `None`: every workspace.
    pub workspaces: Option<Arc<[String]>>,
    /// The server's operator: sees what only the operator may (the checkouts' paths). The
    /// principal of an unauthenticated server (stdio; HTTP without tokens) is, and so is a
    /// request bearing `--operator-token`; a token's named principal is not.
    pub operator: bool,
    /// The agent it is, authenticated by the agent's token or one of its runs' tokens.
    pub agent: Option<Arc<AgentRef>>,
}

/// An agent calling as itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentRef {
    pub agent_id: String,
    pub name: String,
    pub workspace: String,
    /// The run it calls from (its per-run token), when it does.
    pub run_id: Option<String>,
}

impl Principal {
    /// The principal of an unauthenticated server (stdio, or HTTP without tokens).
    pub fn local() -> Principal {
        Principal { name: Arc::from("local"), workspaces: None, operator: true, agent: None }
    }

    /// The operator, authenticated by `--operator-token`.
    pub fn operator() -> Principal {
        Principal { name: Arc::from("operator"), workspaces: None, operator: true, agent: None }
    }

    pub fn new(name: &str, workspaces: Option<Vec<String>>) -> Principal {
        Principal { name: Arc::from(name), workspaces: workspaces.map(Arc::from), operator: false, agent: None }
    }

    /// An agent (of its one workspace), from its run when `run_id` is given.
    pub fn agent(agent: &crate::store::Agent, run_id: Option<String>) -> Principal {
        Principal {
            name: Arc::from(format!("{}@{}", agent.name, agent.workspace_id)),
            workspaces: Some(Arc::from(vec![agent.workspace_id.clone()])),
            operator: false,
            agent: Some(Arc::new(AgentRef {
                agent_id: agent.id.clone(),
                name: agent.name.clone(),
                workspace: agent.workspace_id.clone(),
                run_id,
            })),
        }
    }

    /// How this principal signs what it writes: (kind, name, agent id).
    pub fn as_sender(&self) -> crate::store::Sender {
        match &self.agent {
            Some(a) => {
                crate::store::Sender { kind: "agent".into(), name: a.name.clone(), agent_id: Some(a.agent_id.clone()) }
            }
            None if self.operator => {
                crate::store::Sender { kind: "operator".into(), name: self.name.to_string(), agent_id: None }
            }
            None => crate::store::Sender { kind: "principal".into(), name: self.name.to_string(), agent_id: None },
        }
    }

    /// The space member this principal is.
    pub fn as_member(&self) -> crate::store::Member {
        match &self.agent {
            Some(a) => crate::store::Member { member: a.agent_id.clone(), kind: "agent".into(), name: a.name.clone() },
            None => crate::store::Member {
                member: format!("principal:{}", self.name),
                kind: "principal".into(),
                name: self.name.to_string(),
            },
        }
    }

    /// Whether this principal may see workspace `id`.
    pub fn sees(&self, id: &str) -> bool {
        self.workspaces.as_ref().is_none_or(|w| w.iter().any(|x| x == id))
    }
}

/// The configured tokens: secret -> principal.
#[derive(Clone, Debug, Default)]
pub struct Principals {
    tokens: Vec<(String, Principal)>,
}

fn valid_name(s: &str) -> bool {
    !s.is_empty() && s.len() <= 64 && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
}

impl Principals {
    /// No tokens: requests are not authenticated.
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// Adds one `--token` value: `SECRET` (principal `default`, every workspace) or
    /// `NAME=SECRET` (principal NAME, every workspace). A value whose part after the first
    /// `=` is empty or starts with `=` is a plain secret (base64 padding).
    pub fn add_flag(&mut self, value: &str) -> Result<()> {
        let (name, secret) = match value.split_once('=') {
            Some((n, s)) if valid_name(n) && !s.is_empty() && !s.starts_with('=') => (n, s),
            _ => ("default", value),
        };
        self.add(name, secret, None)
    }

    /// Reads a tokens file: one principal a line, `NAME SECRET [WORKSPACE,...|*]`
    /// (whitespace-separated; no workspaces or `*`: every workspace); `#` starts a comment.
    pub fn add_file(&mut self, path: &Path) -> Result<()> {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading tokens file {}", path.display()))?;
        for (i, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let at = || format!("{}:{}", path.display(), i + 1);
            let parts: Vec<&str> = line.split_whitespace().collect();
            let (name, secret, ws) = match parts.as_slice() {
                [n, s] => (*n, *s, None),
                [n, s, w] => (*n, *s, Some(*w)),
                _ => bail!("{}: expected `NAME SECRET [WORKSPACE,...|*]`", at()),
            };
            if !valid_name(name) {
                bail!("{}: invalid principal name '{name}': use letters, digits, '.', '-' and '_'", at());
            }
            let workspaces = match ws {
                None | Some("*") => None,
                Some(w) => {
                    let list: Vec<String> =
                        w.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect();
                    if list.is_empty() {
                        bail!("{}: empty workspace list", at());
                    }
                    Some(list)
                }
            };
            self.add(name, secret, workspaces).with_context(at)?;
        }
        Ok(())
    }

    fn add(&mut self, name: &str, secret: &str, workspaces: Option<Vec<String>>) -> Result<()> {
        if secret.len() < 8 {
            bail!("the token of principal '{name}' is shorter than 8 characters");
        }
        if self.tokens.iter().any(|(s, _)| s == secret) {
            bail!("the token of principal '{name}' is already used by another principal");
        }
        if name == "operator" || name == "local" {
            bail!(
                "the principal name '{name}' is reserved (the operator's token and the unauthenticated server use it)"
            );
        }
        if self.tokens.iter().any(|(_, p)| &*p.name == name) {
            bail!("principal '{name}' is configured twice");
        }
        self.tokens.push((secret.to_string(), Principal::new(name, workspaces)));
        Ok(())
    }

    /// The principal whose token is `given` (compared in constant time per token).
    pub fn authenticate(&self, given: &str) -> Option<&Principal> {
        let mut found = None;
        for (secret, p) in &self.tokens {
            if constant_time_eq(given.as_bytes(), secret.as_bytes()) {
                found = Some(p);
            }
        }
        found
    }
}

pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_and_files() {
        let mut p = Principals::default();
        p.add_flag("plain-secret-1").unwrap();
        p.add_flag("alice=alice-secret").unwrap();
        p.add_flag("QUJDREVGR0g=").unwrap_err(); // "default" twice: a plain base64 secret
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("tokens");
        std::fs::write(&f, "# who\nbob   bob-secret-x  team,ops\ncarol carol-secret *\n").unwrap();
        p.add_file(&f).unwrap();
        assert_eq!(&*p.authenticate("plain-secret-1").unwrap().name, "default");
        assert_eq!(&*p.authenticate("alice-secret").unwrap().name, "alice");
        let bob = p.authenticate("bob-secret-x").unwrap();
        assert!(bob.sees("team") && bob.sees("ops") && !bob.sees("default"));
        assert!(p.authenticate("carol-secret").unwrap().sees("anything"));
        assert!(p.authenticate("bob-secret").is_none());
        std::fs::write(&f, "dave short\n").unwrap();
        assert!(format!("{:#}", p.add_file(&f).unwrap_err()).contains("shorter than 8"));
        std::fs::write(&f, "eve eve-secret-1 a b\n").unwrap();
        assert!(format!("{:#}", p.add_file(&f).unwrap_err()).contains(":1: expected"));
    }
}
