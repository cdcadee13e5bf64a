//! `GET /ui/approvals?ws=ID`: what waits for the operator — the tool calls in the approval
//! queue (`mcp::approvals`: approve or reject; the same call made again then runs, once) and
//! the board's approvals (`store::board`: approve, reject, request a revision) — and what was
//! decided, each list paginated. The decisions are forms posting to
//! `/ui/approvals/{id}/decide` and `/ui/board/{id}/decide`; each answers with the page again
//! (303) or, refused (decided already, a requester deciding its own), with a page saying why.

use std::fmt::Write;

use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::Extension;

use super::auth::{form_fields, Session};
use super::html::{clip, esc, json_block, pill, see_other, when, Nav, Params, View};
use super::{queries, Answer, Console, Fail};
use crate::store::{Actor, Approval, BoardApproval, BoardKind, BoardStatus};

const PER: u32 = 20;

/// A board kind as a person reads it.
pub(crate) fn kind_label(k: BoardKind) -> &'static str {
    match k {
        BoardKind::PlanExit => "Plan exit",
        BoardKind::Merge => "Merge",
        BoardKind::Publish => "Publish",
        BoardKind::Hire => "Hire",
        BoardKind::Custom => "Request",
        BoardKind::Orchestration => "Orchestration",
        BoardKind::Plan => "Plan",
    }
}

pub(crate) async fn page(State(c): State<Console>, Extension(s): Extension<Session>, q: RawQuery) -> Answer {
    let p = Params::of(q);
    let v = View::new(&c, &s, p.get("ws")).await?;
    let store = &c.app.services.store;
    let ws = v.ws.as_str();
    let (calls_p, board_p, calls_done_p, board_done_p) =
        (p.pager("calls", PER), p.pager("board", PER), p.pager("calls_done", PER), p.pager("board_done", PER));
    let keep: Vec<(&str, &str)> =
        ["ws", "calls", "board", "calls_done", "board_done"].iter().filter_map(|k| p.get(k).map(|v| (*k, v))).collect();
    let mut b = String::with_capacity(16 * 1024);

    // Tool calls waiting.
    let mut ids = queries::call_approvals(store, ws, true, calls_p.offset(), calls_p.fetch()).await?;
    let more = calls_p.cut(&mut ids);
    b.push_str("<section class=\"card\" id=\"calls\"><h2>Tool calls waiting for approval</h2>");
    if ids.is_empty() {
        b.push_str("<p class=\"empty\">No tool call waits.</p>");
    }
    for id in &ids {
        if let Some(a) = store.approvals().get(id).await? {
            call_card(&mut b, &v, &a);
        }
    }
    b.push_str(&calls_p.nav("/ui/approvals", &keep, more));
    b.push_str("</section>");

    // The board's open approvals.
    let mut ids = queries::board_approvals(store, ws, true, board_p.offset(), board_p.fetch()).await?;
    let more = board_p.cut(&mut ids);
    b.push_str("<section class=\"card\" id=\"board\"><h2>The board</h2>");
    if ids.is_empty() {
        b.push_str("<p class=\"empty\">Nothing on the board waits.</p>");
    }
    for id in &ids {
        if let Some(a) = store.board().get(id).await? {
            board_card(&mut b, &c, &v, &a).await?;
        }
    }
    b.push_str(&board_p.nav("/ui/approvals", &keep, more));
    b.push_str("</section>");

    // Decided.
    b.push_str("<div class=\"grid\"><section class=\"card\" id=\"calls-decided\"><h2>Tool calls decided</h2>");
    let mut ids = queries::call_approvals(store, ws, false, calls_done_p.offset(), calls_done_p.fetch()).await?;
    let more = calls_done_p.cut(&mut ids);
    if ids.is_empty() {
        b.push_str("<p class=\"empty\">None yet.</p>");
    } else {
        b.push_str("<table><thead><tr><th>Tool</th><th>Decision</th><th>By</th><th>When</th></tr></thead><tbody>");
        for id in &ids {
            if let Some(a) = store.approvals().get(id).await? {
                let used = if a.consumed_at.is_some() { "" } else { " <span class=\"muted\">(not used yet)</span>" };
                let _ = write!(
                    b,
                    "<tr><td><b>{}</b><div class=\"muted\">{}</div></td><td>{}{used}</td><td>{}</td><td>{}</td></tr>",
                    esc(&a.tool),
                    esc(&a.principal),
                    pill(a.status.as_str()),
                    esc(a.decided_by.as_deref().unwrap_or("")),
                    when(a.decided_at.unwrap_or(a.created_at))
                );
            }
        }
        b.push_str("</tbody></table>");
    }
    b.push_str(&calls_done_p.nav("/ui/approvals", &keep, more));
    b.push_str("</section><section class=\"card\" id=\"board-decided\"><h2>Board decided</h2>");
    let mut ids = queries::board_approvals(store, ws, false, board_done_p.offset(), board_done_p.fetch()).await?;
    let more = board_done_p.cut(&mut ids);
    if ids.is_empty() {
        b.push_str("<p class=\"empty\">None yet.</p>");
    } else {
        b.push_str("<table><thead><tr><th>Request</th><th>Decision</th><th>By</th><th>When</th></tr></thead><tbody>");
        for id in &ids {
            if let Some(a) = store.board().get(id).await? {
                let _ = write!(
                    b,
                    "<tr><td>{} <b>{}</b></td><td>{}</td><td>{}</td><td>{}</td></tr>",
                    kind_label(a.kind),
                    esc(&clip(&a.title, 80)),
                    pill(a.status.as_str()),
                    esc(a.decided_by.as_deref().unwrap_or("")),
                    when(a.decided_at.unwrap_or(a.updated_at))
                );
            }
        }
        b.push_str("</tbody></table>");
    }
    b.push_str(&board_done_p.nav("/ui/approvals", &keep, more));
    b.push_str("</section></div>");
    Ok(v.page(Nav::Approvals, "Approvals", "approval", None, &b))
}

fn call_card(b: &mut String, v: &View, a: &Approval) {
    let ws = a.workspace.as_deref().map(|w| format!(" · workspace {}", esc(w))).unwrap_or_default();
    let _ = write!(
        b,
        "<div class=\"approval waiting\" id=\"{id}\" data-tool=\"{tool}\"><div class=\"head\"><span class=\"tool\">{tool}</span>{}\
         <span class=\"muted\">asked by <b>{}</b>{ws} · {}</span></div><p class=\"why\">{}</p>{}\
         <form class=\"decide\" method=\"post\" action=\"/ui/approvals/{id}/decide\">{}<input type=\"hidden\" name=\"ws\" value=\"{}\">\
         <input type=\"text\" name=\"reason\" placeholder=\"Reason (optional, shown to the caller)\" maxlength=\"2000\">\
         <button class=\"btn approve\" name=\"decision\" value=\"approve\" type=\"submit\">Approve</button>\
         <button class=\"btn reject\" name=\"decision\" value=\"reject\" type=\"submit\">Reject</button></form>\
         <p class=\"muted\">Conversation <code>{}</code> · <code>{id}</code></p></div>",
        pill(a.status.as_str()),
        esc(&a.principal),
        when(a.created_at),
        esc(&a.why),
        json_block(&a.arguments),
        v.csrf_field(),
        esc(&v.ws),
        esc(&a.conversation),
        id = esc(&a.id),
        tool = esc(&a.tool),
    );
}

async fn board_card(b: &mut String, c: &Console, v: &View, a: &BoardApproval) -> Result<(), Fail> {
    let events = c.app.services.store.board().events(&a.id).await?;
    let _ = write!(
        b,
        "<div class=\"approval waiting\" id=\"{id}\"><div class=\"head\"><span class=\"tool\">{} · {}</span>{}\
         <span class=\"muted\">asked by <b>{}</b> · {}</span></div>{}",
        kind_label(a.kind),
        esc(&a.title),
        pill(a.status.as_str()),
        esc(&a.requester),
        when(a.created_at),
        json_block(&a.payload),
        id = esc(&a.id),
    );
    if events.len() > 1 {
        b.push_str("<h3>History</h3><ul class=\"messages\">");
        for e in &events {
            let note = e.note.as_deref().map(|n| format!("<div class=\"text\">{}</div>", esc(n))).unwrap_or_default();
            let _ = write!(
                b,
                "<li><span class=\"who\">{}</span> {} · {}{note}</li>",
                esc(&e.actor),
                esc(&e.action.replace('_', " ")),
                when(e.at)
            );
        }
        b.push_str("</ul>");
    }
    let revise = if a.status == BoardStatus::Pending {
        "<button class=\"btn revise\" name=\"decision\" value=\"request_revision\" type=\"submit\">Request revision</button>"
    } else {
        ""
    };
    let approve = if a.status == BoardStatus::Pending {
        "<button class=\"btn approve\" name=\"decision\" value=\"approve\" type=\"submit\">Approve</button>"
    } else {
        ""
    };
    let _ = write!(
        b,
        "<form class=\"decide\" method=\"post\" action=\"/ui/board/{id}/decide\">{}<input type=\"hidden\" name=\"ws\" value=\"{}\">\
         <input type=\"text\" name=\"note\" placeholder=\"Note (optional; what to revise)\" maxlength=\"4000\">{approve}\
         <button class=\"btn reject\" name=\"decision\" value=\"reject\" type=\"submit\">Reject</button>{revise}</form></div>",
        v.csrf_field(),
        esc(&v.ws),
        id = esc(&a.id),
    );
    Ok(())
}

/// Where a decision form goes back to: the approvals of its workspace.
fn back(f: &std::collections::HashMap<String, String>) -> String {
    super::html::link("/ui/approvals", &[("ws", f.get("ws").map_or("", String::as_str))])
}

/// `POST /ui/approvals/{id}/decide`: `decision` approve or reject, `reason`.
pub(crate) async fn decide_call(State(c): State<Console>, Path(id): Path<String>, body: axum::body::Bytes) -> Answer {
    let f = form_fields(&body);
    let approve = match f.get("decision").map(String::as_str) {
        Some("approve") => true,
        Some("reject") => false,
        other => {
            return Err(Fail::bad_request(format!(
                "decision: expected approve or reject, got {}",
                other.map_or("nothing".into(), |o| format!("'{o}'"))
            )))
        }
    };
    let reason = f.get("reason").map(|r| r.trim()).filter(|r| !r.is_empty());
    crate::mcp::approvals::decide(&c.app.services, &id, approve, "operator (console)", reason).await?;
    Ok(see_other(&back(&f)))
}

/// `POST /ui/board/{id}/decide`: `decision` approve, reject or request_revision, `note`.
pub(crate) async fn decide_board(State(c): State<Console>, Path(id): Path<String>, body: axum::body::Bytes) -> Answer {
    use crate::store::board::Decision;
    let f = form_fields(&body);
    let decision = match f.get("decision").map(String::as_str) {
        Some("approve") => Decision::Approve,
        Some("reject") => Decision::Reject,
        Some("request_revision") => Decision::RequestRevision,
        other => {
            return Err(Fail::bad_request(format!(
                "decision: expected approve, reject or request_revision, got {}",
                other.map_or("nothing".into(), |o| format!("'{o}'"))
            )))
        }
    };
    let note = f.get("note").map(|r| r.trim()).filter(|r| !r.is_empty());
    // The operator, as `cc-server board decide` names it.
    let by = Actor { id: "principal:operator".into(), name: "operator".into() };
    let store = &c.app.services.store;
    let a = store.board().decide(&id, decision, &by, note).await.map_err(|e| match e {
        crate::store::StoreError::Conflict(m) => Fail::new(StatusCode::CONFLICT, m),
        e => e.into(),
    })?;
    let event = crate::bus::Event::Approval {
        workspace_id: Some(a.workspace_id.clone()),
        approval_id: a.id.clone(),
        board: true,
        status: a.status.as_str().into(),
    };
    c.app.services.bus.publish(store, event).await;
    Ok(see_other(&back(&f)))
}
