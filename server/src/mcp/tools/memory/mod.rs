//! Memory tools: facts and policies in domains (search_memory, propose_fact, supersede_fact,
//! propose_policy, supersede_policy, list_policies, list_memory_domains), the calling agent's
//! working memory (record_observation, get_my_notes, update_my_notes, remember,
//! consolidate_memory) and cross-agent reconciliation (harmonize_memory,
//! list_memory_conflicts). Entries are named by id (`old_id`, `new_id`), domains by name
//! (`domain`), both of the call's workspace. The caller is the agent it authenticates as, else
//! its principal: `agent:NAME` or `principal:NAME`, the key domain writers are granted by.

mod consolidate_memory;
mod get_my_notes;
mod harmonize_memory;
mod list_memory_conflicts;
mod list_memory_domains;
mod list_policies;
mod propose_fact;
mod propose_policy;
mod record_observation;
mod remember;
mod search_memory;
mod supersede_fact;
mod supersede_policy;
mod update_my_notes;

use serde_json::json;

use crate::mcp::tool::{Ctx, ErrorKind, Registry, ToolError};
use crate::memory::cli::valid_domain;
use crate::memory::MemoryError;
use crate::store::{Domain, Entry, EntryKind};

/// The area's tools.
pub fn tools(r: &mut Registry) {
    r.add(search_memory::DECL, search_memory::search_memory);
    r.add(propose_fact::DECL, propose_fact::propose_fact);
    r.add(supersede_fact::DECL, supersede_fact::supersede_fact);
    r.add(propose_policy::DECL, propose_policy::propose_policy);
    r.add(supersede_policy::DECL, supersede_policy::supersede_policy);
    r.add(list_policies::DECL, list_policies::list_policies);
    r.add(list_memory_domains::DECL, list_memory_domains::list_memory_domains);
    r.add(record_observation::DECL, record_observation::record_observation);
    r.add(get_my_notes::DECL, get_my_notes::get_my_notes);
    r.add(update_my_notes::DECL, update_my_notes::update_my_notes);
    r.add(remember::DECL, remember::remember);
    r.add(consolidate_memory::DECL, consolidate_memory::consolidate_memory);
    r.add(harmonize_memory::DECL, harmonize_memory::harmonize_memory);
    r.add(list_memory_conflicts::DECL, list_memory_conflicts::list_memory_conflicts);
}

/// The caller: its writer key (`agent:NAME`, `principal:NAME`) and its name.
pub(crate) fn owner(ctx: &Ctx<String>) -> (String, String) {
    match &ctx.principal.agent {
        Some(a) => (format!("agent:{}", a.name), a.name.clone()),
        None => (format!("principal:{}", ctx.principal.name), ctx.principal.name.to_string()),
    }
}

/// `name` if it is a domain name, else an error naming `pointer`.
pub(crate) fn domain_name<'a>(name: &'a str, pointer: &str) -> Result<&'a str, ToolError> {
    if valid_domain(name) {
        Ok(name)
    } else {
        Err(ToolError::invalid(
            pointer,
            format!(
                "{pointer}: '{name}' is not a domain name: use 1 to 64 lower-case letters, digits, '.', '-' and '_'"
            ),
        ))
    }
}

/// The domain `name` of the call's workspace, or an error naming `pointer`.
pub(crate) async fn domain_of(ctx: &Ctx<String>, name: &str, pointer: &str) -> Result<Domain, ToolError> {
    domain_name(name, pointer)?;
    ctx.services.store.memory().domain(&ctx.workspace, name).await?.ok_or_else(|| {
        ToolError::not_found(
            pointer,
            format!(
                "{pointer}: no memory domain '{name}' in workspace '{}'; list_memory_domains lists them",
                ctx.workspace
            ),
        )
    })
}

/// Whether the caller may write policies to `d`: a writer of it, or the operator.
pub(crate) fn may_write(ctx: &Ctx<String>, d: &Domain) -> bool {
    ctx.principal.operator || d.writers.contains(&owner(ctx).0)
}

/// The refusal of a write to `d` the caller may not make.
pub(crate) fn refused(ctx: &Ctx<String>, d: &Domain, pointer: &str, what: &str) -> ToolError {
    let who = owner(ctx).0;
    ToolError::new(
        ErrorKind::Conflict,
        format!(
            "refused: {what} needs write access to memory domain '{}', and {who} has none (its writers: {}); the operator grants it with `cc-server memory domains grant {} --agent NAME`",
            d.name,
            if d.writers.is_empty() { "none".to_string() } else { d.writers.join(", ") },
            d.name
        ),
    )
    .at(pointer)
    .with_data(json!({ "gate": "domain_write", "domain": d.name, "caller": who, "writers": d.writers }))
}

/// The entry `id` of the call's workspace, of `kind`, or an error naming `pointer`.
pub(crate) async fn entry_of(ctx: &Ctx<String>, id: &str, kind: EntryKind, pointer: &str) -> Result<Entry, ToolError> {
    match ctx.services.store.memory().get(id).await? {
        Some(e) if e.workspace_id == ctx.workspace && e.kind == kind => Ok(e),
        Some(e) if e.workspace_id == ctx.workspace => Err(ToolError::invalid(
            pointer,
            format!("{pointer}: {id} is a {}, not a {}", e.kind.as_str(), kind.as_str()),
        )),
        _ => Err(ToolError::not_found(
            pointer,
            format!(
                "{pointer}: no {} '{id}' in workspace '{}'; search_memory finds them",
                kind.as_str(),
                ctx.workspace
            ),
        )),
    }
}

impl From<MemoryError> for ToolError {
    fn from(e: MemoryError) -> Self {
        match e {
            MemoryError::Store(s) => s.into(),
            MemoryError::Index(m) => ToolError::internal(format!("the memory index: {m}")),
        }
    }
}
