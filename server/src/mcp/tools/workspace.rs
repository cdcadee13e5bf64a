//! Workspace tools: list_workspaces (global), list_repos.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::mcp::dispatch::{CallCtx, ToolError};
use crate::mcp::registry::{Registry, Scope, Spec};
use crate::store::Workspace;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

#[derive(Serialize, JsonSchema)]
pub struct WorkspacesOut {
    pub workspaces: Vec<Workspace>,
}

#[derive(Serialize, JsonSchema)]
pub struct RepoOut {
    pub name: String,
    /// Absolute path of the indexed checkout: shown to the operator only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
    pub files: u64,
    pub symbols: u64,
    /// Seconds since the epoch of the last index run.
    pub indexed_at: u64,
    /// Why the index cannot be used, when it cannot (another format version: re-index).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct ReposOut {
    pub workspace_id: String,
    pub repos: Vec<RepoOut>,
}

pub fn register(r: &mut Registry) {
    r.add(
        Spec {
            name: "list_workspaces",
            title: "List workspaces",
            description: "List all workspaces with their IDs and names (global; takes no workspace_id). With tokens configured, the workspaces the caller's token may see.",
            scope: Scope::Global,
            action_classes: &[],
            read_only: true,
        },
        |ctx: CallCtx, _: NoArgs| async move {
            let all = ctx.app.store.workspaces().map_err(ToolError::from)?;
            Ok(WorkspacesOut { workspaces: all.into_iter().filter(|w| ctx.principal.sees(&w.id)).collect() })
        },
    );
    r.add(
        Spec {
            name: "list_repos",
            title: "List repositories",
            description: "List the repositories registered in a workspace, with how much of them is indexed (and, for the operator, where they are checked out).",
            scope: Scope::Required,
            action_classes: &[],
            read_only: true,
        },
        |ctx: CallCtx, _: NoArgs| async move {
            let ws = ctx.workspace.clone().expect("scoped");
            let mut repos = Vec::new();
            for name in ctx.app.store.repos(&ws).map_err(ToolError::from)? {
                let out = match ctx.app.data.meta(&name) {
                    Ok(m) => RepoOut {
                        name,
                        root: ctx.principal.operator.then_some(m.root),
                        files: m.stats.files,
                        symbols: m.stats.symbols,
                        indexed_at: m.indexed_at,
                        problem: None,
                    },
                    Err(e) => RepoOut { name, root: None, files: 0, symbols: 0, indexed_at: 0, problem: Some(e.to_string()) },
                };
                repos.push(out);
            }
            Ok(ReposOut { workspace_id: ws, repos })
        },
    );
}
