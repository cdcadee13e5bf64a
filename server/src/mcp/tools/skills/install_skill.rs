//! install_skill: a skill's whole folder from a git repository, at a ref resolved to a
//! commit and pinned; fetched into a temporary place and scanned before any byte of it
//! reaches the skills folder.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{actor, blocking, refused, skills_of, to_tool_error, work_dir};
use crate::mcp::tool::{ActionClass, Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::skills::git::RefKind;
use crate::skills::{check_slug, fetch_and_scan, locked_of};
use crate::store::{NewSkillEvent, SkillAction};

pub const DECL: Decl = Decl {
    name: "install_skill",
    title: "Install a skill",
    description: "Install a skill's entire folder from a git repository (repository: an https://, http://, git:// or file:// URL; path: the folder holding its SKILL.md, empty for the root; ref: a tag, a branch or a commit id). The ref is resolved to a commit and pinned; the folder is fetched into a temporary place and passes the fail-closed scan gate (limits, file types, no executables, binaries, symlinks, secrets or prompt-injection markers; each refusal names its file, line and rule) before it is written to the skills folder and locked in skills-lock.json. slug defaults to the SKILL.md's name. Requires approval.",
    set: ToolSet::Skills,
    scope: Scope::Required,
    // git runs with a fixed argv as the fetch's transport, not as a process the caller
    // chooses: the class is the network's.
    classes: &[ActionClass::NetworkEgress],
    approval: true,
    modes: Modes::Chat,
    hints: Hints { read_only: false, destructive: false, idempotent: false, open_world: true },
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InstallSkillArgs {
    /// The git repository: an https://, http://, git:// or file:// URL.
    #[schemars(length(min = 1, max = 2000))]
    pub repository: String,
    /// The skill's folder inside the repository (the one holding SKILL.md); empty for the root.
    #[schemars(length(max = 256))]
    pub path: String,
    /// A tag, a branch or a full commit id; resolved to a commit, which is pinned.
    #[serde(rename = "ref")]
    #[schemars(length(min = 1, max = 256))]
    pub git_ref: String,
    /// The slug to install it as; by default its SKILL.md's name.
    #[schemars(length(min = 1, max = 64))]
    pub slug: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct InstalledSkill {
    pub slug: String,
    pub name: String,
    pub description: String,
    pub repository: String,
    pub path: String,
    #[serde(rename = "ref")]
    pub git_ref: String,
    pub ref_kind: RefKind,
    /// The commit pinned.
    pub commit: String,
    /// The content hash locked.
    pub hash: String,
    pub files: usize,
}

#[derive(Serialize, JsonSchema)]
pub struct InstallSkillOut {
    pub skill: InstalledSkill,
}

pub async fn install_skill(ctx: Ctx<String>, a: InstallSkillArgs) -> Result<InstallSkillOut, ToolError> {
    if let Some(slug) = &a.slug {
        check_slug(slug, "/slug").map_err(|e| to_tool_error(e, "/slug"))?;
    }
    let s = skills_of(&ctx)?;
    let work = work_dir(&s).map_err(|e| to_tool_error(e, "/"))?;
    let ev = NewSkillEvent {
        slug: a.slug.clone().unwrap_or_default(),
        repository: Some(a.repository.clone()),
        path: Some(a.path.clone()),
        git_ref: Some(a.git_ref.clone()),
        ..NewSkillEvent::default()
    };
    let fetched = match fetch_and_scan(work.path(), &a.repository, &a.path, &a.git_ref).await {
        Ok(f) => f,
        Err(e) => return Err(refused(&ctx, e, ev, "/path").await),
    };
    drop(work);
    let slug = a.slug.clone().unwrap_or_else(|| fetched.manifest.name.clone());
    let locked = locked_of(&fetched, &a.repository, &a.path, &a.git_ref, crate::store::now());
    let (slug2, entries) = (slug.clone(), fetched.entries);
    let locked =
        blocking(move || s.commit(&slug2, &entries, locked, false)).await.map_err(|e| to_tool_error(e, "/slug"))?;
    ctx.services
        .store
        .skills()
        .record(
            &ctx.workspace,
            SkillAction::Installed,
            NewSkillEvent {
                slug: slug.clone(),
                commit: Some(fetched.commit.clone()),
                hash: Some(locked.hash.clone()),
                actor: actor(&ctx),
                ..ev
            },
        )
        .await?;
    Ok(InstallSkillOut {
        skill: InstalledSkill {
            slug,
            name: locked.name,
            description: locked.description,
            repository: a.repository,
            path: a.path.trim_matches('/').to_string(),
            git_ref: a.git_ref,
            ref_kind: fetched.resolved.kind,
            commit: fetched.commit,
            hash: locked.hash,
            files: locked.files.len(),
        },
    })
}
