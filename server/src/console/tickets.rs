//! `GET /ui/tickets?ws=ID`: the board — a column per working status with its newest tickets
//! (and how many more), the final statuses as links; `?status=S`: that status's tickets, a
//! table by pages. `GET /ui/tickets/{key}`: one ticket with its fields, relations, pull
//! requests, work products, and its comments (its space's messages, newest first, live).

use std::collections::HashMap;
use std::fmt::Write;

use axum::extract::{Path, RawQuery, State};
use axum::Extension;

use super::auth::Session;
use super::html::{clip, esc, pill, when, Nav, Params, View};
use super::queries::{self, TicketLine};
use super::{Answer, Console, Fail};
use crate::store::TicketStatus;

/// The board's columns.
const COLUMNS: [TicketStatus; 5] =
    [TicketStatus::Open, TicketStatus::InProgress, TicketStatus::Blocked, TicketStatus::InReview, TicketStatus::Done];
/// Cards a column shows.
const CARDS: i64 = 15;
const PER: u32 = 50;

/// Agent id -> name, for a workspace.
async fn names(c: &Console, ws: &str) -> Result<HashMap<String, String>, Fail> {
    Ok(c.app.services.store.agents().list(ws).await?.into_iter().map(|a| (a.id, a.name)).collect())
}

fn card(b: &mut String, v: &View, t: &TicketLine, names: &HashMap<String, String>) {
    let who = t.assignee_id.as_ref().map(|a| names.get(a).map_or(a.as_str(), String::as_str)).unwrap_or("unassigned");
    let _ = write!(
        b,
        "<a class=\"ticket-card\" href=\"{}\"><span class=\"key\">T-{}</span> {}<span class=\"t\">{}</span><span class=\"meta\">{} · {}</span></a>",
        esc(&v.url(&format!("/ui/tickets/T-{}", t.number), &[])),
        t.number,
        priority(&t.priority),
        esc(&clip(&t.title, 120)),
        esc(who),
        when(t.updated_at)
    );
}

/// A priority as a small label (none shows nothing).
fn priority(p: &str) -> String {
    if p.is_empty() || p == "none" {
        return String::new();
    }
    format!("<span class=\"prio pr-{0}\">{0}</span>", esc(p))
}

pub(crate) async fn board(State(c): State<Console>, Extension(s): Extension<Session>, q: RawQuery) -> Answer {
    let p = Params::of(q);
    let v = View::new(&c, &s, p.get("ws")).await?;
    let store = &c.app.services.store;
    let ws = v.ws.as_str();
    let names = names(&c, ws).await?;
    let counts = queries::ticket_counts(store, ws).await?;
    let total: i64 = counts.values().sum();
    let mut b = String::with_capacity(32 * 1024);
    let status = match p.get("status") {
        Some(st) => Some(TicketStatus::parse_input(st).map_err(|e| Fail::bad_request(format!("status: {e}")))?),
        None => None,
    };
    // The tabs: the board, then each status with its count.
    let _ = write!(
        b,
        "<div class=\"tabs\"><a href=\"{}\"{}>Board ({total})</a>",
        esc(&v.url("/ui/tickets", &[])),
        if status.is_none() { " class=\"cur\"" } else { "" }
    );
    for st in TicketStatus::ALL {
        let n = counts.get(st.as_str()).copied().unwrap_or(0);
        let _ = write!(
            b,
            "<a href=\"{}\"{}>{} ({n})</a>",
            esc(&v.url("/ui/tickets", &[("status", st.as_str())])),
            if status == Some(st) { " class=\"cur\"" } else { "" },
            esc(&st.as_str().replace('_', " "))
        );
    }
    b.push_str("</div>");
    match status {
        None => {
            b.push_str("<div class=\"board\">");
            for st in COLUMNS {
                let n = counts.get(st.as_str()).copied().unwrap_or(0);
                let _ = write!(
                    b,
                    "<section class=\"column\" id=\"col-{}\"><h2>{} <span class=\"muted\">{n}</span></h2>",
                    st.as_str(),
                    pill(st.as_str())
                );
                let lines = queries::tickets(store, ws, Some(st.as_str()), 0, CARDS).await?;
                if lines.is_empty() {
                    b.push_str("<p class=\"empty\">None.</p>");
                }
                for t in &lines {
                    card(&mut b, &v, t, &names);
                }
                if n > CARDS {
                    let _ = write!(
                        b,
                        "<a href=\"{}\">{} more →</a>",
                        esc(&v.url("/ui/tickets", &[("status", st.as_str())])),
                        n - CARDS
                    );
                }
                b.push_str("</section>");
            }
            b.push_str("</div>");
        }
        Some(st) => {
            let pager = p.pager("page", PER);
            let mut lines = queries::tickets(store, ws, Some(st.as_str()), pager.offset(), pager.fetch()).await?;
            let more = pager.cut(&mut lines);
            b.push_str("<section class=\"card\">");
            if lines.is_empty() {
                b.push_str("<p class=\"empty\">No ticket in this status.</p>");
            } else {
                b.push_str("<table><thead><tr><th>Key</th><th>Title</th><th>Priority</th><th>Assignee</th><th>Updated</th></tr></thead><tbody>");
                for t in &lines {
                    let who =
                        t.assignee_id.as_ref().map(|a| names.get(a).map_or(a.as_str(), String::as_str)).unwrap_or("—");
                    let _ = write!(
                        b,
                        "<tr><td><a href=\"{}\">T-{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                        esc(&v.url(&format!("/ui/tickets/T-{}", t.number), &[])),
                        t.number,
                        esc(&clip(&t.title, 140)),
                        esc(&t.priority),
                        esc(who),
                        when(t.updated_at)
                    );
                }
                b.push_str("</tbody></table>");
            }
            let page = pager.page.to_string();
            b.push_str(&pager.nav(
                "/ui/tickets",
                &[("ws", v.ws.as_str()), ("status", st.as_str()), ("page", &page)],
                more,
            ));
            b.push_str("</section>");
        }
    }
    Ok(v.page(Nav::Tickets, "Tickets", "ticket", None, &b))
}

pub(crate) async fn ticket(
    State(c): State<Console>,
    Extension(s): Extension<Session>,
    Path(key): Path<String>,
    q: RawQuery,
) -> Answer {
    let p = Params::of(q);
    let v = View::new(&c, &s, p.get("ws")).await?;
    let store = &c.app.services.store;
    let tickets = store.tickets();
    let t = tickets
        .find(&v.ws, &key)
        .await?
        .ok_or_else(|| Fail::not_found(format!("no ticket '{key}' in workspace '{}'", v.ws)))?;
    let names = names(&c, &v.ws).await?;
    let name = |id: &Option<String>| id.as_ref().map(|a| names.get(a).cloned().unwrap_or_else(|| a.clone()));
    let mut b = String::with_capacity(16 * 1024);
    let _ = write!(
        b,
        "<p>{} {} <span class=\"muted\">{} · updated {}</span></p>",
        pill(t.status.as_str()),
        priority(t.priority.as_str()),
        esc(&t.key),
        when(t.updated_at)
    );
    b.push_str("<div class=\"grid\"><section class=\"card\" id=\"fields\"><h2>Details</h2><dl class=\"facts\">");
    let mut fact = |k: &str, v: String| {
        let _ = write!(b, "<dt>{k}</dt><dd>{v}</dd>");
    };
    fact("Assignee", esc(&name(&t.assignee_id).unwrap_or_else(|| "unassigned".into())));
    fact("Creator", esc(&t.creator));
    if let Some(team) = &t.team {
        fact("Team", esc(team));
    }
    if !t.labels.is_empty() {
        fact(
            "Labels",
            t.labels.iter().map(|l| format!("<span class=\"pill\">{}</span>", esc(l))).collect::<Vec<_>>().join(" "),
        );
    }
    if let Some(budget) = t.budget {
        fact("Budget", budget.to_string());
    }
    if t.delegation_depth > 0 {
        fact("Delegation depth", t.delegation_depth.to_string());
    }
    if let Some(url) = &t.provider_url {
        fact("Mirrored", format!("<a href=\"{}\" rel=\"noopener noreferrer\">{}</a>", esc(url), esc(url)));
    }
    fact("Created", when(t.created_at));
    if let Some(closed) = t.closed_at {
        fact("Closed", when(closed));
    }
    b.push_str("</dl>");
    if !t.description.is_empty() {
        let _ = write!(
            b,
            "<h3>Description</h3><div class=\"desc\">{}</div>",
            crate::artifacts::markdown::render(&t.description)
        );
    }
    if let Some(out) = &t.output {
        let _ = write!(b, "<h3>Output</h3><pre>{}</pre>", esc(out));
    }
    if let Some(err) = &t.error {
        let _ = write!(b, "<h3>Error</h3><pre>{}</pre>", esc(err));
    }
    b.push_str("</section><section class=\"card\" id=\"relations\"><h2>Relations</h2>");
    let rels = tickets.relations(&t.id).await?;
    if rels.is_empty() {
        b.push_str("<p class=\"empty\">No relations.</p>");
    } else {
        b.push_str("<table><tbody>");
        for r in &rels {
            let other = tickets.get(&r.other_id).await?;
            let cell = match &other {
                Some(o) => format!(
                    "<a href=\"{}\">{}</a> {} {}",
                    esc(&v.url(&format!("/ui/tickets/{}", o.key), &[])),
                    esc(&o.key),
                    esc(&clip(&o.title, 80)),
                    pill(o.status.as_str())
                ),
                None => esc(&r.other_id),
            };
            let _ = write!(
                b,
                "<tr><td class=\"muted\">{}</td><td>{cell}</td></tr>",
                esc(&r.kind.as_str().replace('_', " "))
            );
        }
        b.push_str("</tbody></table>");
    }
    b.push_str("<h3>Pull requests</h3>");
    let prs = tickets.prs(&t.id).await?;
    if prs.is_empty() {
        b.push_str("<p class=\"empty\">None linked.</p>");
    } else {
        b.push_str("<ul>");
        for pr in &prs {
            let _ = write!(
                b,
                "<li><code>{}</code> <span class=\"muted\">linked by {} {}</span></li>",
                esc(&pr.pr_node_id),
                esc(&pr.linked_by),
                when(pr.linked_at)
            );
        }
        b.push_str("</ul>");
    }
    b.push_str("<h3>Work products</h3>");
    let wps = store.work_products().list(&v.ws, Some(&t.id)).await?;
    if wps.is_empty() {
        b.push_str("<p class=\"empty\">None.</p>");
    } else {
        b.push_str("<table><thead><tr><th>Title</th><th>Kind</th><th class=\"num\">Revisions</th><th>Updated</th></tr></thead><tbody>");
        for w in &wps {
            let _ = write!(
                b,
                "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
                esc(&w.title),
                esc(&w.kind),
                w.revisions,
                when(w.updated_at)
            );
        }
        b.push_str("</tbody></table>");
    }
    b.push_str("</section></div>");
    // Comments: the ticket's space.
    let pager = p.pager("page", 30);
    let mut msgs = queries::space_messages(store, &t.space_id, pager.offset(), pager.fetch()).await?;
    let more = pager.cut(&mut msgs);
    let _ = write!(
        b,
        "<section class=\"card\" id=\"comments\"><h2>Comments <a class=\"more\" href=\"{}\">Its space →</a></h2>",
        esc(&v.url(&format!("/ui/spaces/{}", t.space_id), &[]))
    );
    super::spaces::message_list(&mut b, &msgs);
    let page = pager.page.to_string();
    b.push_str(&pager.nav(&format!("/ui/tickets/{}", t.key), &[("ws", v.ws.as_str()), ("page", &page)], more));
    b.push_str("</section>");
    Ok(v.page(Nav::Tickets, &format!("{} · {}", t.key, t.title), "message ticket", Some(&t.space_id), &b))
}
