//! list_repos: a workspace's repositories and how much of them is indexed.

use schemars::JsonSchema;
use serde::Serialize;

use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, NoArgs, Scope, ToolError, ToolSet};

pub const DECL: Decl = Decl {
    name: "list_repos",
    title: "List repositories",
    description: "List the repositories registered in a workspace, with how much of them is indexed. An agent's run gets its own isolated copy-on-write worktree of each (a git worktree on a branch of its own, or a reflink copy), made on first call, never the main checkout; the operator sees where the checkouts are.",
    set: ToolSet::Workspace,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    // A read-only context fetch every mode needs.
    modes: Modes::In(&[Mode::Plan, Mode::Review, Mode::Orchestrate]),
    hints: Hints::READ,
};

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
    /// An agent's run: its own copy of the repository, to work in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worktree: Option<WorktreeOut>,
}

/// A run's own copy of a repository.
#[derive(Serialize, JsonSchema)]
pub struct WorktreeOut {
    /// Absolute path of the copy.
    pub path: String,
    /// `git` (a worktree on `branch`) or `copy` (a reflink copy, for a folder outside git).
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// The commit it started from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// When the run ends it is removed, unless it holds uncommitted or unpushed work.
    pub note: String,
}

#[derive(Serialize, JsonSchema)]
pub struct ReposOut {
    pub workspace_id: String,
    pub repos: Vec<RepoOut>,
}

pub async fn list_repos(ctx: Ctx<String>, _: NoArgs) -> Result<ReposOut, ToolError> {
    let ws = ctx.workspace.clone();
    let mut repos = Vec::new();
    let run = ctx.principal.agent.as_ref().and_then(|a| a.run_id.clone());
    for name in ctx.services.store.workspaces().repos(&ws).await? {
        let mut out = match ctx.services.data.meta(&name) {
            Ok(m) => {
                let worktree = match &run {
                    Some(run) => Some(worktree_out(&ctx, run, &name, &m.root).await?),
                    None => None,
                };
                RepoOut {
                    name,
                    root: ctx.principal.operator.then_some(m.root),
                    files: m.stats.files,
                    symbols: m.stats.symbols,
                    indexed_at: m.indexed_at,
                    problem: None,
                    worktree,
                }
            }
            Err(e) => {
                // The repository a stdio session is bound to is indexed by the first code tool
                // call, not missing.
                let problem = if ctx.services.repos.bound.as_deref() == Some(name.as_str()) {
                    format!("not indexed yet: the first code tool call (search_code, code_symbol, code_callers, …) indexes '{name}', with progress")
                } else {
                    e.to_string()
                };
                RepoOut {
                    name,
                    root: None,
                    files: 0,
                    symbols: 0,
                    indexed_at: 0,
                    problem: Some(problem),
                    worktree: None,
                }
            }
        };
        if out.problem.is_none() && ctx.principal.agent.is_some() && run.is_none() {
            out.problem = Some(
                "an agent gets its own worktree from a run (its CC_MCP_TOKEN), not with its standing token".into(),
            );
        }
        repos.push(out);
    }
    Ok(ReposOut { workspace_id: ws, repos })
}

async fn worktree_out(ctx: &Ctx<String>, run: &str, repo: &str, root: &str) -> Result<WorktreeOut, ToolError> {
    let w =
        ctx.services.runtime.worktree(run, repo, std::path::Path::new(root)).await.map_err(|e| {
            ToolError::new(crate::mcp::tool::ErrorKind::Unavailable, format!("{repo}: no worktree: {e}"))
        })?;
    Ok(WorktreeOut {
        path: w.path.display().to_string(),
        kind: w.kind,
        branch: w.branch,
        base: w.base,
        note: "yours alone; removed when the run ends unless it holds uncommitted or unpushed work".into(),
    })
}
