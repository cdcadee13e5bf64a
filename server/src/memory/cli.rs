//! `cc-server memory domains add|list|grant`: the operator's memory domains, on the store.

use anyhow::Result;
use cc_indexer::DataDir;
use clap::{Args, Subcommand};
use serde_json::json;

use crate::cli::BadInput;
use crate::serve::{block_on, open_store_at, Setup};
use crate::store::StoreError;

#[derive(Args, Debug)]
pub struct MemoryArgs {
    #[command(subcommand)]
    pub command: MemoryCommand,
}

#[derive(Subcommand, Debug)]
pub enum MemoryCommand {
    /// Memory domains: the named parts of a workspace's memory, each with who may write
    /// policies to it
    ///
    /// Anyone of a workspace may propose a fact (the first fact proposed into a new domain
    /// makes it, its proposer its first writer); a policy needs write access to its domain,
    /// which the operator grants here. The operator's own calls may write to every domain.
    Domains(DomainsArgs),
}

#[derive(Args, Debug)]
pub struct DomainsArgs {
    #[command(subcommand)]
    pub command: DomainsCommand,
}

/// Who may write: `--agent NAME` or `--principal NAME` (a token's principal name).
#[derive(Args, Debug, Clone)]
#[group(multiple = true)]
pub struct WriterArgs {
    /// An agent of the workspace, by name (see `cc-server agents list`); repeat for several
    #[arg(long = "agent", value_name = "NAME")]
    pub agents: Vec<String>,
    /// A principal, by the name its token has (see --tokens-file); repeat for several
    #[arg(long = "principal", value_name = "NAME")]
    pub principals: Vec<String>,
}

impl WriterArgs {
    fn keys(&self) -> Result<Vec<String>> {
        let mut out = Vec::new();
        for (kind, names) in [("agent", &self.agents), ("principal", &self.principals)] {
            for n in names {
                let n = n.trim();
                if n.is_empty() || n.len() > 100 {
                    return Err(BadInput(format!("--{kind}: give a name of 1 to 100 characters")).into());
                }
                out.push(format!("{kind}:{n}"));
            }
        }
        Ok(out)
    }
}

#[derive(Subcommand, Debug)]
pub enum DomainsCommand {
    /// Add a memory domain to a workspace, with the writers named
    ///
    /// NAME: lower-case letters, digits, '.', '-' and '_' (e.g. `backend`, `release.process`).
    Add {
        /// The domain's name
        name: String,
        #[arg(long, default_value = "default")]
        workspace: String,
        /// What the domain holds, in a sentence
        #[arg(long, default_value = "")]
        description: String,
        #[command(flatten)]
        writers: WriterArgs,
    },
    /// A workspace's domains, with their writers and their active fact and policy counts
    List {
        #[arg(long, default_value = "default")]
        workspace: String,
        /// JSON output (the list_memory_domains tool's result)
        #[arg(long)]
        json: bool,
    },
    /// Let agents or principals write policies to a domain
    Grant {
        /// The domain's name (see `memory domains list`)
        name: String,
        #[arg(long, default_value = "default")]
        workspace: String,
        #[command(flatten)]
        writers: WriterArgs,
    },
}

/// Whether `name` is a domain name: 1 to 64 of `a-z 0-9 . - _`, starting with a letter or digit.
pub fn valid_domain(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "._-".contains(c))
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
}

fn bad(e: StoreError) -> anyhow::Error {
    match e {
        StoreError::NotFound { .. } | StoreError::Conflict(_) | StoreError::Invalid(_) => {
            BadInput(e.to_string()).into()
        }
        other => other.into(),
    }
}

pub fn run(data: &DataDir, setup: &Setup, a: MemoryArgs) -> Result<()> {
    let MemoryCommand::Domains(d) = a.command;
    block_on(async {
        let store = open_store_at(data, setup.store_url.as_deref()).await?;
        let ws_exists = |ws: String| {
            let store = store.clone();
            async move {
                match store.workspaces().get(&ws).await? {
                    Some(_) => Ok(ws),
                    None => Err(anyhow::Error::from(BadInput(format!("no workspace '{ws}'")))),
                }
            }
        };
        let memory = store.memory();
        match d.command {
            DomainsCommand::Add { name, workspace, description, writers } => {
                if !valid_domain(&name) {
                    return Err(BadInput(format!(
                        "'{name}' is not a domain name: use 1 to 64 lower-case letters, digits, '.', '-' and '_'"
                    ))
                    .into());
                }
                let ws = ws_exists(workspace).await?;
                let d = memory
                    .add_domain(&ws, &name, description.trim(), &writers.keys()?, "operator")
                    .await
                    .map_err(bad)?;
                println!("{}", d.id);
                eprintln!(
                    "added memory domain {} to workspace {ws}; writers: {}",
                    d.name,
                    if d.writers.is_empty() {
                        "none yet (grant with `memory domains grant`)".into()
                    } else {
                        d.writers.join(", ")
                    }
                );
            }
            DomainsCommand::List { workspace, json } => {
                let ws = ws_exists(workspace).await?;
                let list = memory.domains(&ws).await?;
                if json {
                    println!("{}", serde_json::to_string_pretty(&json!({ "domains": list }))?);
                } else if list.is_empty() {
                    println!("no memory domains in {ws}; add one with `cc-server memory domains add NAME`");
                } else {
                    for d in list {
                        println!(
                            "{}  {} facts, {} policies  writers: {}",
                            d.name,
                            d.facts,
                            d.policies,
                            d.writers.join(", ")
                        );
                        if !d.description.is_empty() {
                            println!("    {}", d.description);
                        }
                    }
                }
            }
            DomainsCommand::Grant { name, workspace, writers } => {
                let ws = ws_exists(workspace).await?;
                let keys = writers.keys()?;
                if keys.is_empty() {
                    return Err(BadInput("name who may write: --agent NAME or --principal NAME".into()).into());
                }
                for k in keys {
                    let added = memory.grant(&ws, &name, &k, "operator").await.map_err(bad)?;
                    println!("{k} {} {name}", if added { "may now write to" } else { "could already write to" });
                }
            }
        }
        Ok(())
    })
}
