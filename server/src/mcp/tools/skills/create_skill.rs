//! create_skill: a new local skill from markdown (its SKILL.md), front matter validated and
//! scanned before it is written and locked.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{actor, blocking, refused, skills_of, to_tool_error};
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::skills::lock::{Locked, Source};
use crate::skills::scan::{Entry, EntryKind};
use crate::skills::{check_slug, gate};
use crate::store::{NewSkillEvent, SkillAction};

pub const DECL: Decl = Decl {
    name: "create_skill",
    title: "Create a skill",
    description: "Create a skill in the workspace from markdown: content is its SKILL.md — YAML front matter between '---' lines with name (lowercase letters, digits, hyphens) and description, then the instructions in markdown. It passes the scan gate (secrets, hidden Unicode, instructions in HTML comments, …; each refusal names its line and rule) before it is written to the skills folder and locked in skills-lock.json.",
    set: ToolSet::Skills,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Chat,
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateSkillArgs {
    /// The skill's slug: its folder's name (lowercase letters, digits and hyphens).
    #[schemars(length(min = 1, max = 64), regex(pattern = r"^[a-z0-9][a-z0-9-]*$"))]
    pub slug: String,
    /// The SKILL.md: front matter (name, description), then markdown.
    #[schemars(length(min = 1, max = 1048576))]
    pub content: String,
}

#[derive(Serialize, JsonSchema)]
pub struct CreatedSkill {
    pub slug: String,
    pub name: String,
    pub description: String,
    /// The content hash locked.
    pub hash: String,
}

#[derive(Serialize, JsonSchema)]
pub struct CreateSkillOut {
    pub skill: CreatedSkill,
}

pub async fn create_skill(ctx: Ctx<String>, a: CreateSkillArgs) -> Result<CreateSkillOut, ToolError> {
    check_slug(&a.slug, "/slug").map_err(|e| to_tool_error(e, "/slug"))?;
    let s = skills_of(&ctx)?;
    let entries = vec![Entry::new("SKILL.md", EntryKind::File, a.content.into_bytes())];
    let ev = NewSkillEvent { slug: a.slug.clone(), ..NewSkillEvent::default() };
    let manifest = match gate(&entries) {
        Ok(m) => m,
        Err(e) => return Err(refused(&ctx, e, ev, "/content").await),
    };
    let locked = Locked {
        name: manifest.name.clone(),
        description: manifest.description.clone(),
        source: Source::Local,
        git_ref: None,
        ref_kind: None,
        commit: None,
        hash: String::new(),
        files: Default::default(),
        pinned_at: crate::store::now(),
    };
    let slug = a.slug.clone();
    let locked =
        blocking(move || s.commit(&slug, &entries, locked, false)).await.map_err(|e| to_tool_error(e, "/slug"))?;
    ctx.services
        .store
        .skills()
        .record(
            &ctx.workspace,
            SkillAction::Created,
            NewSkillEvent { hash: Some(locked.hash.clone()), actor: actor(&ctx), ..ev },
        )
        .await?;
    Ok(CreateSkillOut {
        skill: CreatedSkill { slug: a.slug, name: locked.name, description: locked.description, hash: locked.hash },
    })
}
