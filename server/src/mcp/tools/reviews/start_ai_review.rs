//! start_ai_review: a change's areas from the diff and the call graph, a review space, the
//! matching reviewers dispatched per area, and a walkthrough in call order.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{actor, dispatch_areas, Assignment};
use crate::mcp::tool::{Ctx, Decl, ErrorKind, Hints, Modes, Scope, ToolError, ToolSet};
use crate::mcp::tools::messaging::post;
use crate::reviews::change::{analyze, walkthrough_text, AnalysisError, Step, Timings};
use crate::store::reviews::{Cohort, NewReview};
use crate::store::SpaceKind;

pub const DECL: Decl = Decl {
    name: "start_ai_review",
    title: "Start an AI review",
    description: "Review a change of a workspace repository (repo; base and head: any git revisions, or pr: a GitHub pull request of the server's repository, by number). Both revisions are indexed (git worktrees the server manages, never your checkout; an index is kept per commit), the changed symbols found (added, removed, modified: by symbol identity and a hash of each symbol's own text, within the files git diff names), their transitive callers through the call graph (3 hops; base's graph for removed symbols), and grouped into areas: by package (a module less its last segment), packages whose callers overlap by half or more merged. Opens a review space, posts a walkthrough that steps through the changed symbols callees first (each step calls only changed code of earlier steps), and dispatches per area the workspace's reviewer agent (a skill 'review') whose skills best match it. Answers the areas with their symbols and blast radius (transitive callers, their files), the walkthrough, the reviewers and where the time went.",
    set: ToolSet::Reviews,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Chat,
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StartAiReviewArgs {
    /// A repository registered in the workspace (list_repos), a git checkout.
    #[schemars(length(min = 1, max = 100))]
    pub repo: String,
    /// The revision the change starts from: a branch, a tag, a commit id, `HEAD~3` (with
    /// head; or pr).
    #[schemars(length(min = 1, max = 200))]
    pub base: Option<String>,
    /// The revision the change ends at.
    #[schemars(length(min = 1, max = 200))]
    pub head: Option<String>,
    /// A GitHub pull request of the server's repository ([tickets.github]) instead of base and
    /// head: its base and head commits, which the checkout must have (git fetch them first).
    #[schemars(range(min = 1))]
    pub pr: Option<i64>,
    /// Dispatch the reviewer agents now (default true; dispatch_reviewers does it later).
    pub dispatch: Option<bool>,
}

/// An area as the result shows it.
#[derive(Serialize, JsonSchema)]
pub struct AreaOut {
    #[serde(flatten)]
    pub cohort: Cohort,
    pub blast_radius: BlastRadius,
}

#[derive(Serialize, JsonSchema)]
pub struct BlastRadius {
    /// Distinct transitive callers of the area's changed symbols (outside them).
    pub callers: usize,
    /// The files they are in.
    pub files: usize,
}

#[derive(Serialize, JsonSchema)]
pub struct StartAiReviewOut {
    pub review_id: String,
    pub space_id: String,
    pub base_sha: String,
    pub head_sha: String,
    /// The files git diff names between them.
    pub changed_files: Vec<String>,
    pub areas: Vec<AreaOut>,
    pub walkthrough: Vec<Step>,
    /// The reviewer dispatched for each area.
    pub reviewers: Vec<Assignment>,
    /// Areas no reviewer agent of the workspace was found for.
    pub unassigned_areas: Vec<String>,
    pub timings: Timings,
}

pub(crate) fn area_out(c: Cohort) -> AreaOut {
    let blast_radius = BlastRadius { callers: c.callers, files: c.caller_files.len() };
    AreaOut { cohort: c, blast_radius }
}

pub async fn start_ai_review(ctx: Ctx<String>, a: StartAiReviewArgs) -> Result<StartAiReviewOut, ToolError> {
    let repos = ctx.services.store.workspaces().repos(&ctx.workspace).await?;
    if !repos.contains(&a.repo) {
        return Err(ToolError::not_found(
            "/repo",
            format!(
                "/repo: '{}' is not a repository of workspace '{}'; its repositories: {}",
                a.repo,
                ctx.workspace,
                if repos.is_empty() { "none".to_string() } else { repos.join(", ") }
            ),
        )
        .with_data(serde_json::json!({ "candidates": repos })));
    }
    let meta = ctx.services.data.meta(&a.repo).map_err(|e| {
        ToolError::new(ErrorKind::Unavailable, format!("/repo: '{}' has no index to find its checkout: {e}", a.repo))
            .at("/repo")
    })?;
    let root = std::path::PathBuf::from(&meta.root);
    let (base, head) = match (&a.base, &a.head, a.pr) {
        (Some(b), Some(h), None) => (b.clone(), h.clone()),
        (None, None, Some(n)) => {
            let Some(config) = ctx.services.config.tickets.github.as_ref() else {
                return Err(ToolError::new(
                    ErrorKind::Unavailable,
                    "/pr: this server has no GitHub client: the operator configures [tickets.github] (repository, token) in config.toml",
                )
                .at("/pr"));
            };
            let gh = crate::providers::github::GitHub::from_config(config, None)
                .map_err(|m| ToolError::new(ErrorKind::Unavailable, format!("/pr: {m}")).at("/pr"))?;
            let p = gh
                .pull_request(n)
                .await
                .map_err(|e| ToolError::new(ErrorKind::NotFound, format!("/pr: pull request {n}: {e}")).at("/pr"))?;
            (p.base_sha, p.head_sha)
        }
        (_, _, Some(_)) => {
            return Err(ToolError::invalid("/pr", "/pr: give a pull request or base and head, not both"));
        }
        (None, _, None) => return Err(ToolError::invalid("/base", "/base: give base and head (or pr)")),
        (Some(_), None, None) => return Err(ToolError::invalid("/head", "/head: give base and head (or pr)")),
    };
    let (base_rev, head_rev) = (base.clone(), head.clone());
    let (data, repo) = (ctx.services.data.clone(), a.repo.clone());
    let pr = a.pr;
    let analysis = tokio::task::spawn_blocking(move || analyze(&data, &root, &repo, &base, &head))
        .await
        .map_err(|e| ToolError::internal(format!("the analysis failed: {e}")))?
        .map_err(|e| match e {
            AnalysisError::Revision { which, message } => match pr {
                Some(n) => ToolError::invalid(
                    "/pr",
                    format!("/pr: the {which} of pull request {n}: {message}; fetch it into the checkout first (git fetch origin pull/{n}/head)"),
                ),
                None => ToolError::invalid(&format!("/{which}"), format!("/{which}: {message}")),
            },
            AnalysisError::Failed(m) => ToolError::new(ErrorKind::Unavailable, m),
        })?;
    let me = actor(&ctx);
    let title = format!(
        "review: {} {}..{}",
        a.repo,
        &analysis.base_sha[..12.min(analysis.base_sha.len())],
        &analysis.head_sha[..12.min(analysis.head_sha.len())]
    );
    let space = ctx
        .services
        .store
        .spaces()
        .create(&ctx.workspace, SpaceKind::Review, &title, &[ctx.principal.as_member()])
        .await?;
    let walkthrough = serde_json::to_value(&analysis.walkthrough).expect("steps serialize");
    let review = ctx
        .services
        .store
        .reviews()
        .create(NewReview {
            workspace: &ctx.workspace,
            repo: &a.repo,
            base_rev: &base_rev,
            head_rev: &head_rev,
            base_sha: &analysis.base_sha,
            head_sha: &analysis.head_sha,
            pr,
            space_id: &space.id,
            walkthrough: &walkthrough,
            cohorts: &analysis.cohorts,
            by: &me,
        })
        .await?;
    let mut header =
        format!("{title} ({}): {} changed files, {} areas\n", review.id, analysis.files.len(), analysis.cohorts.len());
    for c in &analysis.cohorts {
        header.push_str(&format!(
            "- {}: {} changed symbols in {}; blast radius {} callers in {} files\n",
            c.area,
            c.symbols.len(),
            c.files.join(", "),
            c.callers,
            c.caller_files.len()
        ));
    }
    post(&ctx, &space.id, &header, None).await?;
    post(&ctx, &space.id, &walkthrough_text(&analysis.walkthrough), None).await?;
    let (reviewers, unassigned_areas) = if a.dispatch.unwrap_or(true) {
        dispatch_areas(&ctx, &review, &analysis.cohorts).await?
    } else {
        (Vec::new(), Vec::new())
    };
    Ok(StartAiReviewOut {
        review_id: review.id,
        space_id: space.id,
        base_sha: analysis.base_sha,
        head_sha: analysis.head_sha,
        changed_files: analysis.files,
        areas: analysis.cohorts.into_iter().map(area_out).collect(),
        walkthrough: analysis.walkthrough,
        reviewers,
        unassigned_areas,
        timings: analysis.timings,
    })
}
