//! Workspace tools: list_workspaces (global), list_repos.

mod list_repos;
mod list_workspaces;

use crate::mcp::tool::Registry;

/// The area's tools.
pub fn tools(r: &mut Registry) {
    r.add(list_workspaces::DECL, list_workspaces::list_workspaces);
    r.add(list_repos::DECL, list_repos::list_repos);
}
