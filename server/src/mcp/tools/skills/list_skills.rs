//! list_skills: a workspace's skills — slug, name, description, source, pinned ref — and
//! whether each is offered to agents (verified against skills-lock.json).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{blocking, skills_of, to_tool_error};
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::skills::git::RefKind;
use crate::skills::lock::Source;
use crate::skills::Status;

pub const DECL: Decl = Decl {
    name: "list_skills",
    title: "List skills",
    description: "List the workspace's skills: slug, name, description, source (a git repository and folder, or local), the ref and commit it is pinned at, and its status against skills-lock.json — verified (offered to agents), drifted (its files changed: withheld until pin_skill re-pins it), missing, or unlocked (a folder the lock does not know: withheld until pinned). Name and description come from the lock, as scanned.",
    set: ToolSet::Skills,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Orchestrate]),
    hints: Hints::READ,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListSkillsArgs {}

#[derive(Serialize, JsonSchema)]
pub struct ListedSkill {
    pub slug: String,
    /// From its SKILL.md, as scanned (none for an unlocked folder: unscanned).
    pub name: Option<String>,
    pub description: Option<String>,
    /// None for an unlocked folder.
    pub source: Option<Source>,
    /// The ref it was installed at (a tag, a branch or a commit).
    #[serde(rename = "ref")]
    pub git_ref: Option<String>,
    pub ref_kind: Option<RefKind>,
    /// The commit it is pinned at.
    pub commit: Option<String>,
    /// The content hash in the lock.
    pub hash: Option<String>,
    pub status: Status,
    /// Whether agents are offered it (only verified skills are).
    pub offered: bool,
    /// How many files differ from the lock (verify_skills names them).
    pub drifted_files: usize,
}

#[derive(Serialize, JsonSchema)]
pub struct ListSkillsOut {
    pub skills: Vec<ListedSkill>,
}

pub async fn list_skills(ctx: Ctx<String>, _: ListSkillsArgs) -> Result<ListSkillsOut, ToolError> {
    let s = skills_of(&ctx)?;
    let (lock, all) = blocking(move || s.verify_all()).await.map_err(|e| to_tool_error(e, "/"))?;
    let skills = all
        .into_iter()
        .map(|v| {
            let l = lock.skills.get(&v.slug);
            ListedSkill {
                name: l.map(|l| l.name.clone()),
                description: l.map(|l| l.description.clone()),
                source: l.map(|l| l.source.clone()),
                git_ref: l.and_then(|l| l.git_ref.clone()),
                ref_kind: l.and_then(|l| l.ref_kind),
                commit: l.and_then(|l| l.commit.clone()),
                hash: l.map(|l| l.hash.clone()),
                offered: v.status == Status::Verified,
                drifted_files: v.drift.len(),
                status: v.status,
                slug: v.slug,
            }
        })
        .collect();
    Ok(ListSkillsOut { skills })
}
