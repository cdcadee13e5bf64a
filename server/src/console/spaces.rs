//! `GET /ui/spaces?ws=ID`: the workspace's spaces (kind, members, messages), by pages;
//! `GET /ui/spaces/{id}`: a space's messages, newest first, by pages, updated live as
//! messages are posted.

use std::fmt::Write;

use axum::extract::{Path, RawQuery, State};
use axum::Extension;

use super::auth::Session;
use super::html::{esc, when, Nav, Params, View};
use super::{queries, Answer, Console, Fail};
use crate::store::Message;

const PER: u32 = 50;

/// Messages as a list, in the order given.
pub(crate) fn message_list(b: &mut String, msgs: &[Message]) {
    if msgs.is_empty() {
        b.push_str("<p class=\"empty\">No messages yet.</p>");
        return;
    }
    b.push_str("<ul class=\"messages\">");
    for m in msgs {
        let _ = write!(
            b,
            "<li id=\"m-{}\"><span class=\"who\">{}</span><span class=\"kind\">{}</span> <span class=\"muted\">#{} · {}</span><div class=\"text\">{}</div></li>",
            m.seq,
            esc(&m.sender.name),
            esc(&m.sender.kind),
            m.seq,
            when(m.created_at),
            esc(&m.text)
        );
    }
    b.push_str("</ul>");
}

pub(crate) async fn list(State(c): State<Console>, Extension(s): Extension<Session>, q: RawQuery) -> Answer {
    let p = Params::of(q);
    let v = View::new(&c, &s, p.get("ws")).await?;
    let mut spaces = c.app.services.store.spaces().list(&v.ws).await?;
    // The busiest first.
    spaces.sort_by_key(|s| (std::cmp::Reverse(s.messages), s.name.clone()));
    let pager = p.pager("page", PER);
    let (shown, more) = pager.slice(&spaces);
    let mut b = String::from("<section class=\"card\">");
    if shown.is_empty() {
        b.push_str("<p class=\"empty\">No spaces yet.</p>");
    } else {
        b.push_str("<table><thead><tr><th>Space</th><th>Kind</th><th>Members</th><th class=\"num\">Messages</th><th>Created</th></tr></thead><tbody>");
        for sp in shown {
            let members: Vec<String> = sp.members.iter().take(6).map(|m| esc(&m.name)).collect();
            let extra = if sp.members.len() > 6 { format!(" +{}", sp.members.len() - 6) } else { String::new() };
            let _ = write!(
                b,
                "<tr><td><a href=\"{}\">{}</a></td><td>{}</td><td>{}{extra}</td><td class=\"num\">{}</td><td>{}</td></tr>",
                esc(&v.url(&format!("/ui/spaces/{}", sp.id), &[])),
                esc(&sp.name),
                esc(sp.kind.as_str()),
                members.join(", "),
                sp.messages,
                when(sp.created_at)
            );
        }
        b.push_str("</tbody></table>");
    }
    let page = pager.page.to_string();
    b.push_str(&pager.nav("/ui/spaces", &[("ws", v.ws.as_str()), ("page", &page)], more));
    b.push_str("</section>");
    Ok(v.page(Nav::Spaces, "Spaces", "message", None, &b))
}

pub(crate) async fn space(
    State(c): State<Console>,
    Extension(s): Extension<Session>,
    Path(id): Path<String>,
    q: RawQuery,
) -> Answer {
    let p = Params::of(q);
    let store = &c.app.services.store;
    let sp = store.spaces().get(&id).await?.ok_or_else(|| Fail::not_found(format!("no space '{id}'")))?;
    // A space is shown in its own workspace.
    let v = View::new(&c, &s, Some(&sp.workspace_id)).await?;
    let pager = p.pager("page", PER);
    let mut msgs = queries::space_messages(store, &sp.id, pager.offset(), pager.fetch()).await?;
    let more = pager.cut(&mut msgs);
    let mut b = String::new();
    let members: Vec<String> = sp
        .members
        .iter()
        .map(|m| format!("{} <span class=\"muted\">({})</span>", esc(&m.name), esc(&m.kind)))
        .collect();
    let _ = write!(
        b,
        "<p class=\"muted\">{} space · {} messages · members: {}</p><section class=\"card\" id=\"messages\"><h2>Messages, newest first</h2>",
        esc(sp.kind.as_str()),
        sp.messages,
        if members.is_empty() { "none".into() } else { members.join(", ") }
    );
    message_list(&mut b, &msgs);
    let page = pager.page.to_string();
    b.push_str(&pager.nav(&format!("/ui/spaces/{}", sp.id), &[("ws", v.ws.as_str()), ("page", &page)], more));
    b.push_str("</section>");
    Ok(v.page(Nav::Spaces, &sp.name, "message", Some(&sp.id), &b))
}
