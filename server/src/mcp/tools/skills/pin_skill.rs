//! pin_skill: what is on disk for a skill, scanned, then hashed into skills-lock.json (a
//! drifted skill is offered again; a folder the lock did not know becomes a local skill).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{actor, blocking, refused, skills_of, to_tool_error};
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::skills::{check_slug, gate, SkillError};
use crate::store::{NewSkillEvent, SkillAction};

pub const DECL: Decl = Decl {
    name: "pin_skill",
    title: "Pin a skill",
    description: "Hash a skill as it is on disk into skills-lock.json: its folder passes the scan gate first (each refusal names its file, line and rule), then its content hash and file hashes are locked, keeping its source and commit. A drifted skill is offered to agents again; a folder the lock did not know becomes a local skill.",
    set: ToolSet::Skills,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Chat,
    hints: Hints { read_only: false, destructive: false, idempotent: true, open_world: false },
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PinSkillArgs {
    /// The skill's slug (its folder's name).
    #[schemars(length(min = 1, max = 64))]
    pub slug: String,
}

#[derive(Serialize, JsonSchema)]
pub struct PinSkillOut {
    pub slug: String,
    /// The content hash now locked.
    pub hash: String,
    /// The hash the lock held before (none for a skill it did not know).
    pub previous_hash: Option<String>,
}

pub async fn pin_skill(ctx: Ctx<String>, a: PinSkillArgs) -> Result<PinSkillOut, ToolError> {
    check_slug(&a.slug, "/slug").map_err(|e| to_tool_error(e, "/slug"))?;
    let s = skills_of(&ctx)?;
    let slug = a.slug.clone();
    let s2 = s.clone();
    let (entries, previous) = blocking(move || {
        let previous = s2.read_lock()?.skills.get(&slug).map(|l| l.hash.clone());
        let entries = s2.read_skill(&slug)?.ok_or_else(|| {
            SkillError::NotFound(format!("/slug: no skill folder '{slug}' in this workspace; list_skills lists them"))
        })?;
        Ok((entries, previous))
    })
    .await
    .map_err(|e| to_tool_error(e, "/slug"))?;
    let ev = NewSkillEvent { slug: a.slug.clone(), ..NewSkillEvent::default() };
    let manifest = match gate(&entries) {
        Ok(m) => m,
        Err(e) => return Err(refused(&ctx, e, ev, "/slug").await),
    };
    let slug = a.slug.clone();
    let locked = blocking(move || s.pin(&slug, &entries, &manifest, crate::store::now()))
        .await
        .map_err(|e| to_tool_error(e, "/slug"))?;
    ctx.services
        .store
        .skills()
        .record(
            &ctx.workspace,
            SkillAction::Pinned,
            NewSkillEvent { hash: Some(locked.hash.clone()), commit: locked.commit.clone(), actor: actor(&ctx), ..ev },
        )
        .await?;
    Ok(PinSkillOut { slug: a.slug, hash: locked.hash, previous_hash: previous })
}
