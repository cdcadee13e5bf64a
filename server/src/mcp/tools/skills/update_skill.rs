//! update_skill: an installed git skill moved to a new ref (or its tracked ref's new commit),
//! rescanned and re-pinned.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{actor, blocking, refused, skills_of, to_tool_error, work_dir};
use crate::mcp::tool::{ActionClass, Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::skills::git::RefKind;
use crate::skills::lock::Source;
use crate::skills::{check_slug, fetch_and_scan, locked_of, SkillError};
use crate::store::{NewSkillEvent, SkillAction};

pub const DECL: Decl = Decl {
    name: "update_skill",
    title: "Update a skill",
    description: "Move an installed git skill to a new ref (a tag, a branch or a commit id; by default the ref it tracks, at its newest commit): resolved to a commit, fetched into a temporary place, rescanned by the fail-closed scan gate and re-pinned in skills-lock.json. A refusal leaves the installed skill as it was. Requires approval.",
    set: ToolSet::Skills,
    scope: Scope::Required,
    // git runs with a fixed argv as the fetch's transport, not as a process the caller
    // chooses: the class is the network's.
    classes: &[ActionClass::NetworkEgress],
    approval: true,
    modes: Modes::Chat,
    hints: Hints { read_only: false, destructive: true, idempotent: false, open_world: true },
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateSkillArgs {
    /// The installed skill's slug.
    #[schemars(length(min = 1, max = 64))]
    pub slug: String,
    /// The ref to move to; by default the one it tracks.
    #[serde(rename = "ref")]
    #[schemars(length(min = 1, max = 256))]
    pub git_ref: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct UpdateSkillOut {
    pub slug: String,
    pub repository: String,
    #[serde(rename = "ref")]
    pub git_ref: String,
    pub ref_kind: RefKind,
    /// The commit it was pinned at before.
    pub previous_commit: Option<String>,
    /// The commit it is pinned at now.
    pub commit: String,
    pub hash: String,
    /// Whether its content changed.
    pub changed: bool,
}

pub async fn update_skill(ctx: Ctx<String>, a: UpdateSkillArgs) -> Result<UpdateSkillOut, ToolError> {
    check_slug(&a.slug, "/slug").map_err(|e| to_tool_error(e, "/slug"))?;
    let s = skills_of(&ctx)?;
    let lock = s.read_lock().map_err(|e| to_tool_error(e, "/slug"))?;
    let Some(old) = lock.skills.get(&a.slug).cloned() else {
        return Err(to_tool_error(
            SkillError::NotFound(format!("/slug: no installed skill '{}'; list_skills lists them", a.slug)),
            "/slug",
        ));
    };
    let Source::Git { repository, path } = old.source.clone() else {
        return Err(to_tool_error(
            SkillError::Conflict(format!("skill '{}' is local: it has no repository to update from", a.slug)),
            "/slug",
        ));
    };
    let git_ref = a.git_ref.clone().or(old.git_ref.clone()).unwrap_or_else(|| "HEAD".into());
    let work = work_dir(&s).map_err(|e| to_tool_error(e, "/"))?;
    let ev = NewSkillEvent {
        slug: a.slug.clone(),
        repository: Some(repository.clone()),
        path: Some(path.clone()),
        git_ref: Some(git_ref.clone()),
        ..NewSkillEvent::default()
    };
    let fetched = match fetch_and_scan(work.path(), &repository, &path, &git_ref).await {
        Ok(f) => f,
        Err(e) => return Err(refused(&ctx, e, ev, "/ref").await),
    };
    drop(work);
    let locked = locked_of(&fetched, &repository, &path, &git_ref, crate::store::now());
    let (slug, entries) = (a.slug.clone(), fetched.entries);
    let locked =
        blocking(move || s.commit(&slug, &entries, locked, true)).await.map_err(|e| to_tool_error(e, "/slug"))?;
    ctx.services
        .store
        .skills()
        .record(
            &ctx.workspace,
            SkillAction::Updated,
            NewSkillEvent {
                commit: Some(fetched.commit.clone()),
                hash: Some(locked.hash.clone()),
                actor: actor(&ctx),
                ..ev
            },
        )
        .await?;
    Ok(UpdateSkillOut {
        slug: a.slug,
        repository,
        git_ref,
        ref_kind: fetched.resolved.kind,
        previous_commit: old.commit,
        commit: fetched.commit,
        changed: locked.hash != old.hash,
        hash: locked.hash,
    })
}
