//! code_read: a file's lines, or a symbol's source, through the confined reader.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{read_lines, repos_for};
use crate::mcp::resources;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};

pub const DECL: Decl = Decl {
    name: "code_read",
    title: "Read source",
    description: "Read a repository file (a line range) or a symbol's source by id: the same text the cc:// resources return, for clients that do not read resources.",
    set: ToolSet::Code,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Always,
    hints: Hints::READ,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadArgs {
    /// Only this repository of the workspace (needed when it has several and `path` is given).
    pub repo: Option<String>,
    /// A repository-relative file path.
    pub path: Option<String>,
    /// A symbol id (16 hex digits): reads that symbol's source.
    pub symbol: Option<String>,
    /// First line to read (1-based, default 1).
    #[schemars(range(min = 1))]
    pub start_line: Option<u32>,
    /// Last line to read (default: start_line + 199).
    #[schemars(range(min = 1))]
    pub end_line: Option<u32>,
}

#[derive(Serialize, JsonSchema)]
pub struct ReadOut {
    pub repo: String,
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    /// Lines in the file.
    pub total_lines: u32,
    pub text: String,
    pub uri: String,
    /// An agent's run reads its own worktree: whether this file changed in it since the index
    /// was built (then line numbers other code tools gave may be off).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub worktree_changes: Vec<super::WorktreeChanges>,
}

pub async fn code_read(ctx: Ctx<String>, a: ReadArgs) -> Result<ReadOut, ToolError> {
    let ws = ctx.workspace.clone();
    let repos = repos_for(&ctx, a.repo.as_deref()).await?;
    let (repo, l, path, start, end) = match (&a.symbol, &a.path) {
        (Some(id), None) => {
            let sid = cc_indexer::SymbolId::parse(id)
                .ok_or_else(|| ToolError::invalid("/symbol", "/symbol: expected a 16-hex-digit symbol id"))?;
            let mut found = None;
            for (n, l) in &repos {
                if let Some(s) = l.graph.symbol(sid)? {
                    found = Some((n.clone(), l.clone(), s.into_owned()));
                    break;
                }
            }
            let (repo, l, s) = found
                .ok_or_else(|| ToolError::not_found("/symbol", format!("/symbol: no symbol {id} in this workspace")))?;
            (repo, l, s.path.clone(), a.start_line.unwrap_or(s.span.start_line), a.end_line.unwrap_or(s.span.end_line))
        }
        (None, Some(p)) => {
            if repos.len() > 1 && a.repo.is_none() {
                return Err(ToolError::invalid("/repo", "/repo: the workspace has several repositories; name one"));
            }
            let (repo, l) = repos[0].clone();
            let start = a.start_line.unwrap_or(1);
            (repo, l, p.clone(), start, a.end_line.unwrap_or(start + 199))
        }
        _ => return Err(ToolError::invalid("/path", "/path: give either path or symbol")),
    };
    if end < start {
        return Err(ToolError::invalid("/end_line", "/end_line: must not be before start_line"));
    }
    let (text, start, end, total) =
        read_lines(ctx.services.policy.read_policy, &super::read_root(&ctx, &repo, &l), &path, start, end).await?;
    let worktree_changes = super::worktree_changes(&ctx, &[repo.as_str()]).await;
    Ok(ReadOut {
        worktree_changes,
        uri: resources::file_uri(&ws, &repo, &path),
        repo,
        path,
        start_line: start,
        end_line: end,
        total_lines: total,
        text,
    })
}
