//! The operator's commands for agents and runtime profiles (`cc-server agents …`,
//! `cc-server profiles …`): agents are registered by the operator, never by a tool.

use anyhow::{bail, Context, Result};

use crate::config::Config;
use crate::store::{now, Agent, RuntimeProfile, Store};

/// What `agents add` / `agents update` set.
#[derive(Clone, Debug, Default)]
pub struct AgentSpec {
    pub runtime: Option<String>,
    pub skills: Option<Vec<String>>,
    pub description: Option<String>,
    /// `Some(None)`: no manager.
    pub reports_to: Option<Option<String>>,
    pub capacity: Option<u32>,
    pub autonomy: Option<u8>,
}

fn valid_name(kind: &str, s: &str) -> Result<()> {
    if s.is_empty() || s.len() > 64 || !s.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)) {
        bail!("invalid {kind} name '{s}': use 1 to 64 letters, digits, '.', '-' and '_'");
    }
    Ok(())
}

async fn workspace(store: &Store, ws: &str) -> Result<()> {
    if store.workspaces().get(ws).await?.is_none() {
        bail!("no workspace '{ws}' (cc-server index PATH --workspace {ws} creates one)");
    }
    Ok(())
}

/// The manager `name` of workspace `ws`, refusing one that would make a cycle with `of`.
async fn manager(store: &Store, ws: &str, of: Option<&str>, name: &str) -> Result<String> {
    let m = store
        .agents()
        .by_name(ws, name)
        .await?
        .with_context(|| format!("--reports-to {name}: no agent '{name}' in workspace '{ws}'"))?;
    if let Some(of) = of {
        if m.id == of || store.agents().chain(&m.id).await?.iter().any(|c| c == of) {
            bail!("--reports-to {name}: '{name}' reports (directly or not) to this agent; that would make a cycle");
        }
    }
    Ok(m.id)
}

/// Registers an agent; answers it and its token (shown once: the store keeps its hash).
pub async fn add(store: &Store, config: &Config, ws: &str, name: &str, spec: AgentSpec) -> Result<(Agent, String)> {
    valid_name("agent", name)?;
    workspace(store, ws).await?;
    let runtime = spec.runtime.context("--runtime PROFILE is required (cc-server profiles list shows them)")?;
    let profile = store.agents().profile(ws, &runtime).await?.with_context(|| {
        format!("--runtime {runtime}: no runtime profile '{runtime}' in workspace '{ws}' (cc-server profiles add)")
    })?;
    if !config.allows(&profile.command) {
        eprintln!(
            "warning: profile '{}' starts `{}`, which [runtimes] allow of the configuration does not hold: its runs will be refused",
            profile.name, profile.command
        );
    }
    let reports_to = match spec.reports_to.flatten() {
        Some(m) => Some(manager(store, ws, None, &m).await?),
        None => None,
    };
    let (token, hash) = super::new_token("cca");
    let agent = Agent {
        id: format!("ag-{}", uuid::Uuid::now_v7().simple()),
        workspace_id: ws.into(),
        name: name.into(),
        profile_id: profile.id,
        skills: spec.skills.unwrap_or_default(),
        description: spec.description.unwrap_or_default(),
        reports_to,
        capacity: spec.capacity.unwrap_or(1).max(1),
        autonomy: spec.autonomy.unwrap_or(1).min(3),
        created_at: now(),
    };
    store.agents().add(&agent, &hash).await?;
    Ok((agent, token))
}

/// Changes an agent's profile, skills, description, manager, capacity or autonomy.
pub async fn update(store: &Store, ws: &str, name: &str, spec: AgentSpec) -> Result<Agent> {
    let mut a = get(store, ws, name).await?;
    if let Some(r) = spec.runtime {
        a.profile_id = store
            .agents()
            .profile(ws, &r)
            .await?
            .with_context(|| format!("--runtime {r}: no runtime profile '{r}' in workspace '{ws}'"))?
            .id;
    }
    if let Some(s) = spec.skills {
        a.skills = s;
    }
    if let Some(d) = spec.description {
        a.description = d;
    }
    if let Some(m) = spec.reports_to {
        a.reports_to = match m {
            Some(m) => Some(manager(store, ws, Some(&a.id), &m).await?),
            None => None,
        };
    }
    if let Some(c) = spec.capacity {
        a.capacity = c.max(1);
    }
    if let Some(x) = spec.autonomy {
        a.autonomy = x.min(3);
    }
    store.agents().update(&a).await?;
    Ok(a)
}

pub async fn get(store: &Store, ws: &str, name: &str) -> Result<Agent> {
    store
        .agents()
        .by_name(ws, name)
        .await?
        .with_context(|| format!("no agent '{name}' in workspace '{ws}' (cc-server agents list)"))
}

/// A new token for the agent (the old one stops working).
pub async fn rotate(store: &Store, ws: &str, name: &str) -> Result<String> {
    let a = get(store, ws, name).await?;
    let (token, hash) = super::new_token("cca");
    store.agents().set_token(&a.id, &hash).await?;
    Ok(token)
}

pub async fn remove(store: &Store, ws: &str, name: &str) -> Result<()> {
    let a = get(store, ws, name).await?;
    store.agents().remove(&a.id).await?;
    Ok(())
}

/// A runtime profile, by the operator: `argv` is the command and its fixed arguments,
/// and the command must be on the allow-list.
pub async fn add_profile(
    store: &Store,
    config: &Config,
    mut p: RuntimeProfile,
    argv: &[String],
) -> Result<RuntimeProfile> {
    valid_name("profile", &p.name)?;
    workspace(store, &p.workspace_id).await?;
    let (command, args) =
        argv.split_first().context("give the command after `--`: profiles add NAME --family F -- COMMAND ARG…")?;
    check_allowed(config, command).map_err(anyhow::Error::msg)?;
    p.command = command.clone();
    p.args = args.to_vec();
    store.agents().add_profile(&p).await?;
    Ok(p)
}

/// Refuses a command the operator's allow-list does not hold, saying how to allow it.
pub fn check_allowed(config: &Config, command: &str) -> Result<(), String> {
    if config.allows(command) {
        return Ok(());
    }
    let allowed =
        if config.runtimes.allow.is_empty() { "nothing".to_string() } else { config.runtimes.allow.join(", ") };
    Err(format!(
        "`{command}` is not on the operator's allow-list of runtime commands ([runtimes] allow of the server's config.toml holds {allowed})"
    ))
}
