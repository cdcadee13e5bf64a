//! Review tools: start_ai_review (a change's areas from the diff and the call graph, a review
//! space, reviewers dispatched per area, a walkthrough in call order), the findings
//! (add_review_node, confirm_review_node, resolve_review_node, dismiss_review_node,
//! request_peer_review), the verdicts (submit_reviewer_verdict), dispatch_reviewers,
//! set_cohort_summary, add_review_diagram (checked against the head's call graph) and
//! finalize_review, publish_review_to_github (the finalized review onto its pull request). A review is named by `review_id`, a finding by
//! `node_id`, an area by `area`, all of the call's workspace.

mod add_review_diagram;
mod add_review_node;
mod confirm_review_node;
mod dismiss_review_node;
mod dispatch_reviewers;
mod finalize_review;
mod publish_review_to_github;
mod request_peer_review;
mod resolve_review_node;
mod set_cohort_summary;
mod start_ai_review;
mod submit_reviewer_verdict;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;

use crate::agents::Brief;
use crate::mcp::tool::{Ctx, ErrorKind, Registry, ToolError};
use crate::mcp::tools::agents::{dispatch, run_out, RunOut};
use crate::store::reviews::{Cohort, Node, Review, ReviewStatus};
use crate::store::{Agent, Member};

pub(crate) use crate::mcp::tools::governance::actor;

/// The area's tools.
pub fn tools(r: &mut Registry) {
    r.add(start_ai_review::DECL, start_ai_review::start_ai_review);
    r.add(add_review_node::DECL, add_review_node::add_review_node);
    r.add(confirm_review_node::DECL, confirm_review_node::confirm_review_node);
    r.add(resolve_review_node::DECL, resolve_review_node::resolve_review_node);
    r.add(dismiss_review_node::DECL, dismiss_review_node::dismiss_review_node);
    r.add(request_peer_review::DECL, request_peer_review::request_peer_review);
    r.add(dispatch_reviewers::DECL, dispatch_reviewers::dispatch_reviewers);
    r.add(submit_reviewer_verdict::DECL, submit_reviewer_verdict::submit_reviewer_verdict);
    r.add(finalize_review::DECL, finalize_review::finalize_review);
    r.add(set_cohort_summary::DECL, set_cohort_summary::set_cohort_summary);
    r.add(add_review_diagram::DECL, add_review_diagram::add_review_diagram);
    r.add(publish_review_to_github::DECL, publish_review_to_github::publish_review_to_github);
}

/// The review `id` of the call's workspace, or an error naming `pointer`.
pub(crate) async fn review_of(ctx: &Ctx<String>, id: &str, pointer: &str) -> Result<Review, ToolError> {
    match ctx.services.store.reviews().get(id).await? {
        Some(r) if r.workspace_id == ctx.workspace => Ok(r),
        _ => Err(ToolError::not_found(
            pointer,
            format!("{pointer}: no review '{id}' in workspace '{}'; start_ai_review starts one", ctx.workspace),
        )),
    }
}

/// The review `id`, which must be open: a finalized one is a conflict naming `pointer`.
pub(crate) async fn open_review(ctx: &Ctx<String>, id: &str, pointer: &str) -> Result<Review, ToolError> {
    let r = review_of(ctx, id, pointer).await?;
    if r.status != ReviewStatus::Open {
        return Err(closed(&r, pointer));
    }
    Ok(r)
}

/// The error for a change of a finalized review.
pub(crate) fn closed(r: &Review, pointer: &str) -> ToolError {
    ToolError::new(
        ErrorKind::Conflict,
        format!(
            "{pointer}: review {} is finalized (verdict {}): it takes no more findings, confirmations, verdicts, summaries or diagrams",
            r.id,
            r.verdict.map_or("?", |v| v.as_str())
        ),
    )
    .at(pointer)
    .with_data(json!({ "status": "finalized", "verdict": r.verdict }))
}

/// The finding `id` with its review, both of the call's workspace, or an error naming `pointer`.
pub(crate) async fn node_of(ctx: &Ctx<String>, id: &str, pointer: &str) -> Result<(Node, Review), ToolError> {
    let missing = || {
        ToolError::not_found(
            pointer,
            format!(
                "{pointer}: no finding '{id}' in workspace '{}' (add_review_node answers a node_id)",
                ctx.workspace
            ),
        )
    };
    let Some(n) = ctx.services.store.reviews().node(id).await? else { return Err(missing()) };
    match ctx.services.store.reviews().get(&n.review_id).await? {
        Some(r) if r.workspace_id == ctx.workspace => Ok((n, r)),
        _ => Err(missing()),
    }
}

/// The area `area` of a review, or an error naming `pointer` with the review's areas.
pub(crate) async fn area_of(
    ctx: &Ctx<String>,
    review: &Review,
    area: &str,
    pointer: &str,
) -> Result<Cohort, ToolError> {
    let all = ctx.services.store.reviews().cohorts(&review.id).await?;
    let names: Vec<String> = all.iter().map(|c| c.area.clone()).collect();
    all.into_iter().find(|c| c.area == area).ok_or_else(|| {
        ToolError::not_found(
            pointer,
            format!(
                "{pointer}: review {} has no area '{area}'; its areas: {}",
                review.id,
                if names.is_empty() { "none".to_string() } else { names.join(", ") }
            ),
        )
        .with_data(json!({ "areas": names }))
    })
}

/// A store error of a call about `pointer` (a refusal or a conflict names it).
pub(crate) fn at(e: crate::store::StoreError, pointer: &str) -> ToolError {
    let t = ToolError::from(e);
    let message = format!("{pointer}: {}", t.message);
    ToolError { message, ..t }.at(pointer)
}

/// The workspace's reviewer agents: a skill, or a word of the description, is review,
/// reviewer or reviews.
pub(crate) async fn reviewers(ctx: &Ctx<String>) -> Result<Vec<Agent>, ToolError> {
    let me = ctx.principal.as_member().member;
    let is = |w: &str| matches!(w, "review" | "reviewer" | "reviews" | "code-review" | "code_review");
    Ok(ctx
        .services
        .store
        .agents()
        .list(&ctx.workspace)
        .await?
        .into_iter()
        .filter(|a| a.id != me)
        .filter(|a| {
            a.skills.iter().any(|s| is(&s.to_lowercase()))
                || a.description
                    .split(|c: char| !c.is_alphanumeric() && c != '-' && c != '_')
                    .any(|w| is(&w.to_lowercase()))
        })
        .collect())
}

/// A reviewer chosen for an area.
#[derive(Serialize, JsonSchema)]
pub struct Assignment {
    pub area: String,
    pub agent: String,
    pub agent_id: String,
    /// Why it was chosen: the area's terms its skills or description matched, or the fallback.
    pub why: String,
    pub run: RunOut,
}

/// The words an area is matched on: its packages, files (folders, names, extensions) and
/// changed symbols' names.
fn area_terms(c: &Cohort) -> Vec<String> {
    let mut text = c.modules.join(" ");
    for f in &c.files {
        text.push(' ');
        text.push_str(&f.replace(['/', '.'], " "));
        if let Some(lang) = cc_grammars::detect_by_name(std::path::Path::new(f)) {
            text.push(' ');
            text.push_str(lang.name());
        }
    }
    for s in &c.symbols {
        text.push(' ');
        text.push_str(&s.name);
    }
    crate::rank::content_terms(&text)
}

/// The reviewer for each area: the reviewer whose skills, description and name best match the
/// area's terms (BM25; every one matching nothing: the reviewer with the fewest areas so far,
/// ties by name), never one of `exclude` (agent ids); `None` for an area when there is none.
pub(crate) fn choose<'a>(
    agents: &'a [Agent],
    cohorts: &[Cohort],
    exclude: &[String],
) -> Vec<(String, Option<(&'a Agent, String)>)> {
    let pool: Vec<&Agent> = agents.iter().filter(|a| !exclude.contains(&a.id)).collect();
    let docs: Vec<Vec<String>> = pool
        .iter()
        .map(|a| crate::rank::words(&format!("{} {} {}", a.name, a.skills.join(" "), a.description)))
        .collect();
    let mut load = vec![0usize; pool.len()];
    cohorts
        .iter()
        .map(|c| {
            let terms = area_terms(c);
            let pick = match crate::rank::bm25(&docs, &terms).first() {
                Some(&(i, score)) => {
                    let matched: Vec<&str> = terms.iter().filter(|t| docs[i].contains(t)).map(String::as_str).collect();
                    Some((i, format!("its skills match the area ({}; score {score:.2})", matched.join(", "))))
                }
                None => (0..pool.len()).min_by_key(|&i| (load[i], pool[i].name.as_str())).map(|i| {
                    (
                        i,
                        "no reviewer's skills name the area: the reviewer with the fewest areas of this review"
                            .to_string(),
                    )
                }),
            };
            match pick {
                Some((i, why)) => {
                    load[i] += 1;
                    (c.area.clone(), Some((pool[i], why)))
                }
                None => (c.area.clone(), None),
            }
        })
        .collect()
}

/// A reviewer's brief for an area.
pub(crate) fn area_brief(review: &Review, c: &Cohort, by: &str) -> String {
    let mut b = format!(
        "{by} asks you to review area '{}' of review {} ({} {}..{}), in space {}.\n\nreview_id: {}\narea: {}\nfiles: {}\n",
        c.area,
        review.id,
        review.repo,
        &review.base_sha[..review.base_sha.len().min(12)],
        &review.head_sha[..review.head_sha.len().min(12)],
        review.space_id,
        review.id,
        c.area,
        c.files.join(", ")
    );
    b.push_str(&format!(
        "blast radius: {} transitive callers in {} files\nchanged symbols:\n",
        c.callers,
        c.caller_files.len()
    ));
    for s in &c.symbols {
        b.push_str(&format!(
            "- {:?} {} {} ({}:{}), {} callers\n",
            s.change, s.kind, s.qualified_name, s.file, s.line, s.callers
        ));
    }
    if !c.caller_files.is_empty() {
        b.push_str(&format!("callers in: {}\n", c.caller_files.join(", ")));
    }
    b.push_str(
        "\nRead the walkthrough in the space (get_messages). Raise findings with add_review_node (review_id, area, file, line, priority P0-P3, title, body), confirm your peers' findings with confirm_review_node, and give your verdict with submit_reviewer_verdict (ship | hold | block, confidence 0..1, explanation).",
    );
    b
}

/// Adds `agent` to the review's space and starts its run with `brief`.
pub(crate) async fn dispatch_to(
    ctx: &Ctx<String>,
    review: &Review,
    agent: &Agent,
    reason_text: String,
) -> Result<RunOut, ToolError> {
    let them = Member { member: agent.id.clone(), kind: "agent".into(), name: agent.name.clone() };
    ctx.services.store.spaces().add_member(&review.space_id, &them).await?;
    let run = dispatch(
        ctx,
        agent,
        Brief {
            reason: "review",
            text: reason_text,
            space_id: Some(review.space_id.clone()),
            message_id: None,
            ticket_id: None,
        },
    )
    .await?;
    Ok(run_out(&run, agent))
}

/// Dispatches the chosen reviewer of each area in parallel; areas without one are listed.
pub(crate) async fn dispatch_areas(
    ctx: &Ctx<String>,
    review: &Review,
    cohorts: &[Cohort],
) -> Result<(Vec<Assignment>, Vec<String>), ToolError> {
    let agents = reviewers(ctx).await?;
    let by = crate::mcp::tools::agents::caller_name(ctx);
    let plan = choose(&agents, cohorts, &[]);
    let mut unassigned = Vec::new();
    let mut jobs = Vec::new();
    for (area, pick) in plan {
        let Some((agent, why)) = pick else {
            unassigned.push(area);
            continue;
        };
        let c = cohorts.iter().find(|c| c.area == area).expect("an area of the plan");
        let brief = area_brief(review, c, &by);
        let (agent, ctx) = (agent.clone(), ctx.clone());
        let review = review.clone();
        jobs.push(async move {
            let run = dispatch_to(&ctx, &review, &agent, brief).await?;
            Ok::<_, ToolError>(Assignment { area, agent: agent.name.clone(), agent_id: agent.id.clone(), why, run })
        });
    }
    let done = futures::future::join_all(jobs).await;
    let mut out = Vec::new();
    for d in done {
        out.push(d?);
    }
    Ok((out, unassigned))
}
