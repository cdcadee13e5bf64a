//! list_repos: a workspace's repositories and how much of them is indexed.

use schemars::JsonSchema;
use serde::Serialize;

use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, NoArgs, Scope, ToolError, ToolSet};

pub const DECL: Decl = Decl {
    name: "list_repos",
    title: "List repositories",
    description: "List the repositories registered in a workspace, with how much of them is indexed (and, for the operator, where they are checked out).",
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
}

#[derive(Serialize, JsonSchema)]
pub struct ReposOut {
    pub workspace_id: String,
    pub repos: Vec<RepoOut>,
}

pub async fn list_repos(ctx: Ctx<String>, _: NoArgs) -> Result<ReposOut, ToolError> {
    let ws = ctx.workspace.clone();
    let mut repos = Vec::new();
    for name in ctx.services.store.workspaces().repos(&ws).await? {
        let out = match ctx.services.data.meta(&name) {
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
}
