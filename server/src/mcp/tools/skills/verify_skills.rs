//! verify_skills: each locked skill's folder hashed against skills-lock.json, naming every
//! drifted file.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{blocking, skills_of, to_tool_error};
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::skills::{SkillError, Status, Verification};

pub const DECL: Decl = Decl {
    name: "verify_skills",
    title: "Verify skills",
    description: "Verify the workspace's skills against skills-lock.json: each folder is hashed (a canonical walk of paths, modes and bytes) and compared with its lock entry; every file added, removed, modified or with another mode is named. A skill that fails is not offered to agents until pin_skill re-pins it. slug: only that skill.",
    set: ToolSet::Skills,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Chat,
    hints: Hints::READ,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VerifySkillsArgs {
    /// Only this skill.
    #[schemars(length(min = 1, max = 64))]
    pub slug: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct VerifySkillsOut {
    /// Every skill verified: none drifted, missing or unlocked.
    pub ok: bool,
    pub skills: Vec<Verification>,
}

pub async fn verify_skills(ctx: Ctx<String>, a: VerifySkillsArgs) -> Result<VerifySkillsOut, ToolError> {
    let s = skills_of(&ctx)?;
    let slug = a.slug.clone();
    let skills = blocking(move || {
        let (lock, mut all) = s.verify_all()?;
        if let Some(slug) = slug {
            crate::skills::check_slug(&slug, "/slug")?;
            all.retain(|v| v.slug == slug);
            if all.is_empty() && !lock.skills.contains_key(&slug) {
                return Err(SkillError::NotFound(format!(
                    "/slug: no skill '{slug}' in this workspace; list_skills lists them"
                )));
            }
        }
        Ok(all)
    })
    .await
    .map_err(|e| to_tool_error(e, "/slug"))?;
    Ok(VerifySkillsOut { ok: skills.iter().all(|v| v.status == Status::Verified), skills })
}
