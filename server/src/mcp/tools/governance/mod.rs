//! Governance tools: goals (create_goal, list_goals, update_goal_progress, complete_goal: four levels,
//! progress rolled up from children by the rule in `store::goals`), the approvals board (create_approval, list_approvals,
//! decide_approval, comment_approval: governed actions someone other than the requester
//! decides, by the state machine of `store::board`), and work products (create_work_product, save_work_product_revision,
//! list_work_products, get_work_product) — a ticket's durable deliverables, revised against
//! the revision a writer read. A work product is named by `work_product_id`, a revision by
//! `revision_id`, a board approval by `approval_id`, a goal by `goal_id`, a ticket by `ticket_id` (id or key), all of the call's workspace.

mod comment_approval;
mod complete_goal;
mod create_approval;
mod create_goal;
mod create_work_product;
mod decide_approval;
mod get_work_product;
mod list_approvals;
mod list_goals;
mod list_work_products;
mod save_work_product_revision;
mod update_goal_progress;

use crate::mcp::tool::{Ctx, Registry, ToolError};
use crate::store::{Actor, BoardApproval, WorkProduct};

/// The area's tools.
pub fn tools(r: &mut Registry) {
    r.add(create_goal::DECL, create_goal::create_goal);
    r.add(list_goals::DECL, list_goals::list_goals);
    r.add(update_goal_progress::DECL, update_goal_progress::update_goal_progress);
    r.add(complete_goal::DECL, complete_goal::complete_goal);
    r.add(create_approval::DECL, create_approval::create_approval);
    r.add(list_approvals::DECL, list_approvals::list_approvals);
    r.add(decide_approval::DECL, decide_approval::decide_approval);
    r.add(comment_approval::DECL, comment_approval::comment_approval);
    r.add(create_work_product::DECL, create_work_product::create_work_product);
    r.add(save_work_product_revision::DECL, save_work_product_revision::save_work_product_revision);
    r.add(list_work_products::DECL, list_work_products::list_work_products);
    r.add(get_work_product::DECL, get_work_product::get_work_product);
}

/// The work product `id` of the call's workspace, or an error naming `pointer`.
pub(crate) async fn work_product_of(ctx: &Ctx<String>, id: &str, pointer: &str) -> Result<WorkProduct, ToolError> {
    match ctx.services.store.work_products().get(id).await? {
        Some(w) if w.workspace_id == ctx.workspace => Ok(w),
        _ => Err(ToolError::not_found(
            pointer,
            format!(
                "{pointer}: no work product '{id}' in workspace '{}'; list_work_products lists them",
                ctx.workspace
            ),
        )),
    }
}

/// The board approval `id` of the call's workspace, or an error naming `pointer`.
pub(crate) async fn approval_of(ctx: &Ctx<String>, id: &str, pointer: &str) -> Result<BoardApproval, ToolError> {
    match ctx.services.store.board().get(id).await? {
        Some(a) if a.workspace_id == ctx.workspace => Ok(a),
        _ => Err(ToolError::not_found(
            pointer,
            format!("{pointer}: no board approval '{id}' in workspace '{}'; list_approvals lists them", ctx.workspace),
        )),
    }
}

/// The caller as the board knows it: an agent by its id, anyone else by principal name.
pub(crate) fn actor(ctx: &Ctx<String>) -> Actor {
    match &ctx.principal.agent {
        Some(a) => Actor { id: a.agent_id.clone(), name: a.name.clone() },
        None => Actor { id: format!("principal:{}", ctx.principal.name), name: ctx.principal.name.to_string() },
    }
}
