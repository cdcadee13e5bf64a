//! Skill tools: list_skills, create_skill, install_skill, update_skill, list_skill_updates,
//! verify_skills, pin_skill — a workspace's skills folder and its skills-lock.json
//! ([`crate::skills`]). A skill is named by `slug`; install_skill takes `repository` (a git
//! URL), `path` (the skill's folder in it) and `ref` (a tag, a branch or a commit), resolved to
//! a commit and pinned. Every install, update, creation and pin passes the scan gate first;
//! each refusal is recorded in the store's skill history with its findings.

mod create_skill;
mod install_skill;
mod list_skill_updates;
mod list_skills;
mod pin_skill;
mod update_skill;
mod verify_skills;

use crate::mcp::tool::{Ctx, ErrorKind, Registry, ToolError};
use crate::skills::git::GitError;
use crate::skills::{SkillError, Skills};
use crate::store::{NewSkillEvent, SkillAction};

/// The area's tools.
pub fn tools(r: &mut Registry) {
    r.add(list_skills::DECL, list_skills::list_skills);
    r.add(create_skill::DECL, create_skill::create_skill);
    r.add(install_skill::DECL, install_skill::install_skill);
    r.add(update_skill::DECL, update_skill::update_skill);
    r.add(list_skill_updates::DECL, list_skill_updates::list_skill_updates);
    r.add(verify_skills::DECL, verify_skills::verify_skills);
    r.add(pin_skill::DECL, pin_skill::pin_skill);
}

/// The skills of the call's workspace.
pub(crate) fn skills_of(ctx: &Ctx<String>) -> Result<Skills, ToolError> {
    Skills::of(&ctx.services.data.root, &ctx.workspace).map_err(|e| to_tool_error(e, "/workspace_id"))
}

/// Runs blocking file work off the async workers.
pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, SkillError> + Send + 'static,
) -> Result<T, SkillError> {
    tokio::task::spawn_blocking(f).await.unwrap_or_else(|e| {
        Err(SkillError::Io { what: "a skills task".into(), source: std::io::Error::other(e.to_string()) })
    })
}

/// The caller as the skill history records it: an agent by its id, anyone else by principal.
pub(crate) fn actor(ctx: &Ctx<String>) -> String {
    match &ctx.principal.agent {
        Some(a) => a.agent_id.clone(),
        None => format!("principal:{}", ctx.principal.name),
    }
}

/// A skills error as the caller sees it; a scan refusal names `content_pointer` (the
/// argument whose content was refused) and lists every finding in `data.refusals`.
pub(crate) fn to_tool_error(e: SkillError, content_pointer: &str) -> ToolError {
    let msg = e.to_string();
    match e {
        SkillError::Refused(found) => {
            ToolError::invalid(content_pointer, msg).with_data(serde_json::json!({ "refusals": found }))
        }
        SkillError::Git(g) => match g {
            GitError::NoRef { .. } | GitError::NoCommit { .. } => ToolError::not_found("/ref", msg),
            GitError::NoPath { .. } => ToolError::not_found("/path", msg),
            GitError::Unreachable { .. } => ToolError::new(ErrorKind::Unavailable, msg).at("/repository"),
            GitError::NoGit(_) => ToolError::new(ErrorKind::Unavailable, msg),
            GitError::Failed { .. } => ToolError::internal(msg),
        },
        SkillError::Lock(_) => ToolError::new(ErrorKind::Conflict, msg),
        SkillError::NotFound(_) => ToolError::not_found("/slug", msg),
        SkillError::Conflict(_) => ToolError::new(ErrorKind::Conflict, msg),
        SkillError::Invalid { pointer, .. } => ToolError::invalid(pointer, msg),
        SkillError::Io { .. } => ToolError::internal(msg),
    }
}

/// Records a refusal of the scan gate in the skill history, then returns the error.
pub(crate) async fn refused(ctx: &Ctx<String>, e: SkillError, mut ev: NewSkillEvent, pointer: &str) -> ToolError {
    if let SkillError::Refused(found) = &e {
        ev.refusals = Some(serde_json::to_value(found).unwrap_or_default());
        ev.actor = actor(ctx);
        if let Err(store) = ctx.services.store.skills().record(&ctx.workspace, SkillAction::Refused, ev).await {
            return store.into();
        }
    }
    to_tool_error(e, pointer)
}

/// A temporary folder for a fetch, under the workspace's staging folder.
pub(crate) fn work_dir(s: &Skills) -> Result<tempfile::TempDir, SkillError> {
    let staging = s.staging()?;
    tempfile::Builder::new()
        .prefix("fetch-")
        .tempdir_in(&staging)
        .map_err(|source| SkillError::Io { what: format!("creating a folder in {}", staging.display()), source })
}
