//! list_skill_updates: the installed git skills whose tracked ref has a newer commit, or
//! whose tag has newer tags, asked of each repository.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{skills_of, to_tool_error, work_dir};
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::skills::{check_update, UpdateCheck};

pub const DECL: Decl = Decl {
    name: "list_skill_updates",
    title: "List skill updates",
    description: "List the installed git skills that have a newer version: a tracked branch (or a moved tag) whose commit is not the pinned one, or newer version tags than the pinned tag. Each skill's repository is asked for its refs; status is up_to_date, newer_commit, newer_tag, ref_gone (the ref was removed) or unreachable, with the error. all: every git skill, not only those with an update. update_skill applies one.",
    set: ToolSet::Skills,
    scope: Scope::Required,
    // Reads only (git ls-remote of the repositories the lock names, installed under
    // approval); open_world says it reaches them. Chat only, by its modes.
    classes: &[],
    approval: false,
    modes: Modes::Chat,
    hints: Hints { read_only: true, destructive: false, idempotent: true, open_world: true },
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListSkillUpdatesArgs {
    /// Only this skill.
    #[schemars(length(min = 1, max = 64))]
    pub slug: Option<String>,
    /// Every git skill with its status, not only those with an update (or a problem).
    #[serde(default)]
    pub all: bool,
}

#[derive(Serialize, JsonSchema)]
pub struct ListSkillUpdatesOut {
    pub skills: Vec<UpdateCheck>,
}

pub async fn list_skill_updates(ctx: Ctx<String>, a: ListSkillUpdatesArgs) -> Result<ListSkillUpdatesOut, ToolError> {
    let s = skills_of(&ctx)?;
    let lock = s.read_lock().map_err(|e| to_tool_error(e, "/"))?;
    if let Some(slug) = &a.slug {
        if !lock.skills.contains_key(slug) {
            return Err(ToolError::not_found(
                "/slug",
                format!("/slug: no installed skill '{slug}'; list_skills lists them"),
            ));
        }
    }
    let work = work_dir(&s).map_err(|e| to_tool_error(e, "/"))?;
    let checks = lock
        .skills
        .iter()
        .filter(|(slug, _)| a.slug.as_ref().is_none_or(|s| s == *slug))
        .map(|(slug, l)| check_update(work.path(), slug, l));
    let mut skills: Vec<UpdateCheck> = futures::future::join_all(checks).await.into_iter().flatten().collect();
    if !a.all {
        skills.retain(|c| c.status != "up_to_date");
    }
    Ok(ListSkillUpdatesOut { skills })
}
