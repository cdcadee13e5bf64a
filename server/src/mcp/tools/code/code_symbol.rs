//! code_symbol: symbols by exact or qualified name.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{blocking, read_lines, repos_for, symbol_out, SymbolOut};
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};

pub const DECL: Decl = Decl {
    name: "code_symbol",
    title: "Look up a symbol",
    description: "Look up symbols by exact name (or qualified name), or list the symbols defined in a file or folder (path); returns file:line, the signature and a resource link for each match, and their source with include_source.",
    set: ToolSet::Code,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Always,
    hints: Hints::READ,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SymbolArgs {
    /// An exact name (`parse_json`) or qualified name (`pkg.mod.parse_json`, `crate::a::f`).
    /// Required unless path is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String", length(min = 1, max = 1000))]
    pub name: Option<String>,
    /// The same as name: the word code_callers, code_callees and code_impact use (an id, a
    /// qualified name, a suffix or a plain name).
    #[schemars(length(min = 1, max = 1000))]
    pub symbol: Option<String>,
    /// The symbols defined in this file or folder (relative to the repository's root; `.`:
    /// all), in path and line order; with name, only those of that name.
    #[schemars(length(min = 1, max = 4096))]
    pub path: Option<String>,
    /// Only this repository of the workspace.
    pub repo: Option<String>,
    /// Also return each match's source text.
    pub include_source: Option<bool>,
    /// At most this many matches (default 50).
    #[schemars(range(min = 1, max = 500))]
    pub limit: Option<u32>,
}

#[derive(Serialize, JsonSchema)]
pub struct SymbolResult {
    pub matches: Vec<SymbolOut>,
    /// An agent's run: files of its worktrees changed since the index was built.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub worktree_changes: Vec<super::WorktreeChanges>,
}

pub async fn code_symbol(ctx: Ctx<String>, a: SymbolArgs) -> Result<SymbolResult, ToolError> {
    let ws = ctx.workspace.clone();
    let repos = repos_for(&ctx, a.repo.as_deref()).await?;
    let limit = a.limit.unwrap_or(50) as usize;
    let mut matches = Vec::new();
    let name = match (a.name, a.symbol) {
        (Some(n), Some(s)) if n != s => {
            return Err(ToolError::invalid(
                "/symbol",
                "/symbol: give name or symbol (they are the same argument), not both",
            ))
        }
        (n, s) => n.or(s),
    };
    let (wanted, path) = match (name, a.path) {
        (None, None) => return Err(ToolError::invalid("/name", "/name: give a name, or a path to list its symbols")),
        (name, path) => (name, path.map(|p| if p == "." { String::new() } else { p.trim_matches('/').to_string() })),
    };
    if let Some(p) = &path {
        if p.split('/').any(|c| c == "..") {
            return Err(ToolError::invalid("/path", format!("/path: '{p}' leaves the repository")));
        }
    }
    for (name, l) in &repos {
        if matches.len() >= limit {
            break;
        }
        let (l2, wanted, path) = (l.clone(), wanted.clone(), path.clone());
        let found = blocking(move || match &path {
            Some(p) => {
                let mut v = crate::ops::symbols_in(&*l2.graph, p, wanted.as_deref())?;
                v.truncate(limit);
                Ok(v)
            }
            None => {
                let name = wanted.as_deref().unwrap_or_default();
                let internal = |e: cc_indexer::Error| ToolError::internal(e.to_string());
                let mut v = crate::ops::lookup_indexed(&l2.repo, name, limit).map_err(internal)?;
                if v.is_empty() {
                    v = crate::ops::lookup_in_graph(&l2.repo, &*l2.graph, name, limit)?;
                }
                Ok(v)
            }
        })
        .await?;
        for s in found {
            let mut out = symbol_out(&ws, name, &s);
            if a.include_source == Some(true) {
                out.source = Some(
                    read_lines(
                        ctx.services.policy.read_policy,
                        &super::read_root(&ctx, name, l),
                        &s.path,
                        s.span.start_line,
                        s.span.end_line,
                    )
                    .await?
                    .0,
                );
            }
            matches.push(out);
        }
    }
    matches.truncate(limit);
    let worktree_changes = super::worktree_changes(&ctx, &repos.iter().map(|r| r.0.as_str()).collect::<Vec<_>>()).await;
    Ok(SymbolResult { matches, worktree_changes })
}
