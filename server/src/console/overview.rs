//! `GET /ui?ws=ID`: the workspace at a glance — its agents with their health and live runs,
//! its tickets by status, what waits for the operator, the newest messages. Each list shows
//! its first rows and links to its page (where it paginates).

use std::fmt::Write;

use axum::extract::{RawQuery, State};
use axum::Extension;

use super::auth::Session;
use super::html::{clip, esc, pill, when, Nav, Params, View};
use super::{agents, approvals, queries, Answer, Console};
use crate::store::TicketStatus;

/// Rows each overview list shows.
const SHOWN: usize = 12;

pub(crate) async fn page(State(c): State<Console>, Extension(s): Extension<Session>, q: RawQuery) -> Answer {
    let p = Params::of(q);
    let v = View::new(&c, &s, p.get("ws")).await?;
    let store = &c.app.services.store;
    let ws = v.ws.as_str();
    let agent_list = store.agents().list(ws).await?;
    let beats = store.agents().heartbeats(ws).await?;
    let live = queries::live_runs(store, ws).await?;
    let counts = queries::ticket_counts(store, ws).await?;
    let calls = queries::call_approvals(store, ws, true, 0, SHOWN as i64 + 1).await?;
    let board = queries::board_approvals(store, ws, true, 0, SHOWN as i64 + 1).await?;
    let messages = queries::recent_messages(store, ws, 0, SHOWN as i64).await?;

    let running: i64 = live.values().map(|r| r.0).sum();
    let queued: i64 = live.values().map(|r| r.1).sum();
    let open: i64 = counts.iter().filter(|(st, _)| !is_final(st)).map(|(_, n)| n).sum();
    let waiting = calls.len().min(SHOWN) + board.len().min(SHOWN);
    let mut b = String::with_capacity(16 * 1024);
    b.push_str("<div class=\"stats\">");
    stat(&mut b, "agents", &agent_list.len().to_string(), "agents", &v.url("/ui/agents", &[]), false);
    stat(&mut b, "runs", &format!("{running} · {queued}"), "runs running · queued", &v.url("/ui/agents", &[]), false);
    stat(&mut b, "open-tickets", &open.to_string(), "open tickets", &v.url("/ui/tickets", &[]), false);
    let more = if calls.len() > SHOWN || board.len() > SHOWN { "+" } else { "" };
    stat(&mut b, "waiting", &format!("{waiting}{more}"), "waiting for you", &v.url("/ui/approvals", &[]), waiting > 0);
    b.push_str("</div><div class=\"grid\">");

    // What waits for the operator.
    let _ = write!(
        b,
        "<section class=\"card\" id=\"pending\"><h2>Waiting for a decision <a class=\"more\" href=\"{}\">All approvals →</a></h2>",
        esc(&v.url("/ui/approvals", &[]))
    );
    if calls.is_empty() && board.is_empty() {
        b.push_str("<p class=\"empty\">Nothing waits for you.</p>");
    } else {
        b.push_str("<table><thead><tr><th>What</th><th>Asked by</th><th>When</th></tr></thead><tbody>");
        for id in calls.iter().take(SHOWN) {
            if let Some(a) = store.approvals().get(id).await? {
                let _ = write!(
                    b,
                    "<tr><td><a href=\"{}\">Tool call <b>{}</b></a><div class=\"muted\">{}</div></td><td>{}</td><td>{}</td></tr>",
                    esc(&v.url("/ui/approvals", &[])),
                    esc(&a.tool),
                    esc(&clip(&a.why, 90)),
                    esc(&a.principal),
                    when(a.created_at)
                );
            }
        }
        for id in board.iter().take(SHOWN) {
            if let Some(a) = store.board().get(id).await? {
                let _ = write!(
                    b,
                    "<tr><td><a href=\"{}\">{} <b>{}</b></a> {}</td><td>{}</td><td>{}</td></tr>",
                    esc(&v.url("/ui/approvals", &[])),
                    approvals::kind_label(a.kind),
                    esc(&clip(&a.title, 80)),
                    pill(a.status.as_str()),
                    esc(&a.requester),
                    when(a.created_at)
                );
            }
        }
        b.push_str("</tbody></table>");
    }
    b.push_str("</section>");

    // Tickets by status.
    let _ = write!(
        b,
        "<section class=\"card\" id=\"tickets\"><h2>Tickets by status <a class=\"more\" href=\"{}\">Board →</a></h2><table><tbody>",
        esc(&v.url("/ui/tickets", &[]))
    );
    for st in TicketStatus::ALL {
        let n = counts.get(st.as_str()).copied().unwrap_or(0);
        let _ = write!(
            b,
            "<tr><td><a href=\"{}\">{}</a></td><td class=\"num\">{n}</td></tr>",
            esc(&v.url("/ui/tickets", &[("status", st.as_str())])),
            pill(st.as_str())
        );
    }
    b.push_str("</tbody></table></section>");

    // Agents.
    let _ = write!(
        b,
        "<section class=\"card\" id=\"agents\"><h2>Agents <a class=\"more\" href=\"{}\">Org chart and runs →</a></h2>",
        esc(&v.url("/ui/agents", &[]))
    );
    if agent_list.is_empty() {
        b.push_str(
            "<p class=\"empty\">No agents yet (the operator hires them: <code>cc-server agents add</code>).</p>",
        );
    } else {
        b.push_str("<table><thead><tr><th>Agent</th><th>Health</th><th class=\"num\">Running</th><th class=\"num\">Queued</th></tr></thead><tbody>");
        // Busy agents first, then by name.
        let mut shown: Vec<_> = agent_list.iter().collect();
        shown.sort_by_key(|a| {
            let (r, q) = live.get(&a.id).copied().unwrap_or_default();
            (std::cmp::Reverse(r + q), a.name.clone())
        });
        for a in shown.iter().take(SHOWN) {
            let beat = beats.iter().find(|h| h.agent_id == a.id);
            let (r, q) = live.get(&a.id).copied().unwrap_or_default();
            let _ = write!(
                b,
                "<tr><td><a href=\"{}\">{}</a></td><td>{}</td><td class=\"num\">{r}</td><td class=\"num\">{q}</td></tr>",
                esc(&v.url(&format!("/ui/agents/{}", a.id), &[])),
                esc(&a.name),
                agents::health_cell(&c, beat)
            );
        }
        b.push_str("</tbody></table>");
        if agent_list.len() > SHOWN {
            let _ = write!(
                b,
                "<p class=\"others\"><a href=\"{}\">All {} agents →</a></p>",
                esc(&v.url("/ui/agents", &[])),
                agent_list.len()
            );
        }
    }
    b.push_str("</section>");

    // Messages.
    let _ = write!(
        b,
        "<section class=\"card\" id=\"messages\"><h2>Recent messages <a class=\"more\" href=\"{}\">Spaces →</a></h2>",
        esc(&v.url("/ui/spaces", &[]))
    );
    if messages.is_empty() {
        b.push_str("<p class=\"empty\">No messages yet.</p>");
    } else {
        b.push_str("<ul class=\"messages\">");
        for (m, space) in &messages {
            let _ = write!(
                b,
                "<li><span class=\"who\">{}</span><span class=\"kind\">{}</span><a class=\"where\" href=\"{}\">in {}</a> · {}<div class=\"text\">{}</div></li>",
                esc(&m.sender.name),
                esc(&m.sender.kind),
                esc(&v.url(&format!("/ui/spaces/{}", m.space_id), &[])),
                esc(space),
                when(m.created_at),
                esc(&clip(&m.text, 300))
            );
        }
        b.push_str("</ul>");
    }
    b.push_str("</section></div>");
    Ok(v.page(Nav::Overview, "Overview", "message approval run ticket", None, &b))
}

fn is_final(status: &str) -> bool {
    matches!(status, "done" | "failed" | "cancelled")
}

fn stat(b: &mut String, id: &str, n: &str, label: &str, href: &str, alert: bool) {
    let class = if alert { "stat alert" } else { "stat" };
    let _ = write!(
        b,
        "<a class=\"{class}\" id=\"stat-{id}\" href=\"{}\"><div class=\"n\">{}</div><div class=\"l\">{}</div></a>",
        esc(href),
        esc(n),
        esc(label)
    );
}
