//! exit_plan_mode: leave plan mode once the plan is approved — on the approvals board.
//!
//! The conversation's request is a board approval of kind plan_exit (requested by the
//! conversation itself, in the principal's workspace: an agent's own, else the principal's
//! first, else default). Its decision is what lets the conversation out: decided on the
//! board (decide_approval by someone else, `cc-server board decide`), or through the
//! confirmation port (the user's elicitation, else the operator's queue), whose answer is
//! recorded on the board as the decision. An approved plan_exit is used once.

use serde_json::json;

use super::{persistent, ModeOut};
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, ErrorKind, Hints, Modes, NoArgs, Scope, ToolError, ToolSet};
use crate::store::board::Decision;
use crate::store::{Actor, BoardKind, BoardStatus, StoreError, DEFAULT_WORKSPACE};

pub const DECL: Decl = Decl {
    name: "exit_plan_mode",
    title: "Exit plan mode",
    description: "Take this conversation out of plan mode (into chat) once the plan is approved: opens a plan_exit approval on the approvals board (or takes up the conversation's open one) and, once it is approved — on the board (decide_approval, cc-server board decide) or through the user's or operator's confirmation — consumes it and leaves plan mode. A rejection is recorded on the board; calling again opens a new request.",
    set: ToolSet::Conversation,
    scope: Scope::Global,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Plan]),
    hints: Hints { read_only: false, destructive: false, idempotent: true, open_world: false },
};

/// The confirmation port, as the board records its decisions.
fn port() -> Actor {
    Actor {
        id: "confirmation-port".into(),
        name: "the confirmation port (the user's elicitation or the operator's queue)".into(),
    }
}

pub async fn exit_plan_mode(ctx: Ctx<()>, _: NoArgs) -> Result<ModeOut, ToolError> {
    persistent(&ctx)?;
    let mode = ctx.conversation.mode();
    if mode != Mode::Plan {
        return Err(ToolError::new(
            ErrorKind::Mode,
            format!("exit_plan_mode: this conversation is in {mode} mode, not plan"),
        )
        .with_data(json!({"mode": mode})));
    }
    ctx.services.policy.check_ceiling(Mode::Chat).map_err(|message| {
        ToolError::new(ErrorKind::Mode, message)
            .with_data(json!({"mode": mode, "max_mode": ctx.services.policy.max_mode}))
    })?;
    let workspace = match (&ctx.principal.agent, ctx.principal.workspaces.as_deref()) {
        (Some(a), _) => a.workspace.clone(),
        (None, Some([first, ..])) => first.clone(),
        _ => DEFAULT_WORKSPACE.to_string(),
    };
    let conversation = ctx.conversation.id.clone();
    let board = ctx.services.store.board();
    let requester = Actor {
        id: format!("conversation:{conversation}"),
        name: format!("{}'s conversation {}", ctx.principal.name, &conversation[..conversation.len().min(8)]),
    };
    let latest = board.latest_of(&workspace, BoardKind::PlanExit, &conversation).await?;
    let before = latest
        .as_ref()
        .filter(|a| a.status == BoardStatus::Rejected)
        .map(|a| {
            format!(
                " (the board rejected the previous request, {}, by {})",
                a.id,
                a.decided_by.as_deref().unwrap_or("?")
            )
        })
        .unwrap_or_default();
    let a = match latest {
        Some(a) if a.status == BoardStatus::Approved && a.consumed_at.is_none() => a,
        Some(a) if a.status == BoardStatus::Pending => a,
        Some(a) if a.status == BoardStatus::RevisionRequested => {
            board.decide(&a.id, Decision::Resubmit, &requester, Some("exit_plan_mode was called again")).await?
        }
        _ => {
            let payload =
                json!({"conversation": conversation, "principal": &*ctx.principal.name, "from": "plan", "to": "chat"});
            let title = format!("Leave plan mode: {} asks to act on its plan", requester.name);
            board.create(&workspace, BoardKind::PlanExit, &title, &payload, &requester, Some(&conversation)).await?
        }
    };
    let how = format!(
        "board approval {} (plan_exit, workspace {workspace}): decide it with decide_approval or `cc-server board decide {}`",
        a.id, a.id
    );
    if a.status != BoardStatus::Approved {
        let args = json!({"mode": Mode::Chat, "conversation": conversation, "approval_id": a.id});
        let why = format!("plan_exit: leaving plan mode for chat (every tool); {how}");
        if let Err(mut e) = ctx.confirm(&args, why).await {
            let status = e.data.as_ref().and_then(|d| d["status"].as_str()).unwrap_or_default().to_string();
            if matches!(status.as_str(), "declined" | "rejected") {
                // An explicit refusal is the board's decision too.
                let _ = board.decide(&a.id, Decision::Reject, &port(), Some(&e.message)).await;
            }
            e.message = format!("{}; {how}{before}", e.message);
            let mut data = e.data.take().unwrap_or_else(|| json!({}));
            data["board_approval_id"] = json!(a.id);
            e.data = Some(data);
            return Err(e);
        }
        match board.decide(&a.id, Decision::Approve, &port(), Some("approved through the confirmation port")).await {
            Ok(_) => {}
            // Decided on the board meanwhile: its decision stands.
            Err(StoreError::Conflict(_)) => {
                let now = board.get(&a.id).await?.map(|a| a.status);
                if now != Some(BoardStatus::Approved) {
                    return Err(ToolError::new(
                        ErrorKind::ApprovalDenied,
                        format!(
                            "the board decided {} ({}) meanwhile; the conversation stays in plan mode",
                            a.id,
                            now.map_or("gone", |s| s.as_str())
                        ),
                    ));
                }
            }
            Err(e) => return Err(e.into()),
        }
    }
    if !board.consume(&a.id).await? {
        return Err(ToolError::new(
            ErrorKind::Conflict,
            format!("board approval {} was used already; call exit_plan_mode again for a new one", a.id),
        ));
    }
    let previous = ctx.conversation.set_mode(Mode::Chat);
    if let Some(peer) = &ctx.call.peer {
        let _ = peer.notify_tool_list_changed().await;
    }
    Ok(ModeOut { mode: Mode::Chat, previous, changed: previous != Mode::Chat })
}
