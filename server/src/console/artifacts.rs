//! `GET /ui/artifacts?ws=ID`: the workspace's artifacts by pages, newest change first;
//! `GET /ui/artifacts/{id}[?revision=N]`: one revision rendered by `crate::artifacts` (the
//! renderer of `/artifacts/{id}`: sanitized markdown, tables, SVG charts and diagrams,
//! highlighted code), with links to its other revisions.

use std::fmt::Write;

use axum::extract::{Path, RawQuery, State};
use axum::Extension;

use super::auth::Session;
use super::html::{esc, when, Nav, Params, View};
use super::{queries, Answer, Console, Fail};

const PER: u32 = 30;

pub(crate) async fn list(State(c): State<Console>, Extension(s): Extension<Session>, q: RawQuery) -> Answer {
    let p = Params::of(q);
    let v = View::new(&c, &s, p.get("ws")).await?;
    let store = &c.app.services.store;
    let pager = p.pager("page", PER);
    let mut ids = queries::artifacts(store, &v.ws, pager.offset(), pager.fetch()).await?;
    let more = pager.cut(&mut ids);
    let mut b = String::from("<section class=\"card\">");
    if ids.is_empty() {
        b.push_str("<p class=\"empty\">No artifacts yet (publish_artifact makes one).</p>");
    } else {
        b.push_str("<table><thead><tr><th>Title</th><th class=\"num\">Revisions</th><th>By</th><th>Updated</th></tr></thead><tbody>");
        for id in &ids {
            let Some(a) = store.artifacts().get(id).await? else { continue };
            let _ = write!(
                b,
                "<tr><td><a href=\"{}\">{}</a></td><td class=\"num\">{}</td><td>{}</td><td>{}</td></tr>",
                esc(&v.url(&format!("/ui/artifacts/{}", a.id), &[])),
                esc(&a.title),
                a.revisions,
                esc(&a.created_by),
                when(a.updated_at)
            );
        }
        b.push_str("</tbody></table>");
    }
    let page = pager.page.to_string();
    b.push_str(&pager.nav("/ui/artifacts", &[("ws", v.ws.as_str()), ("page", &page)], more));
    b.push_str("</section>");
    Ok(v.page(Nav::Artifacts, "Artifacts", "", None, &b))
}

pub(crate) async fn artifact(
    State(c): State<Console>,
    Extension(s): Extension<Session>,
    Path(id): Path<String>,
    q: RawQuery,
) -> Answer {
    let p = Params::of(q);
    let store = &c.app.services.store;
    let a = store.artifacts().get(&id).await?.ok_or_else(|| Fail::not_found(format!("no artifact '{id}'")))?;
    let v = View::new(&c, &s, Some(&a.workspace_id)).await?;
    let number = match p.get("revision") {
        Some(n) => {
            Some(n.parse::<i64>().map_err(|_| Fail::bad_request("revision: expected a revision number (1, 2, …)"))?)
        }
        None => None,
    };
    let rev = store.artifacts().revision(&a.id, number).await?.ok_or_else(|| {
        Fail::not_found(format!(
            "artifact '{id}' has no revision {} (its revisions: 1 to {})",
            number.unwrap_or(0),
            a.revisions
        ))
    })?;
    let blocks: Vec<crate::artifacts::Block> = serde_json::from_value(rev.blocks).map_err(|e| {
        Fail::new(axum::http::StatusCode::INTERNAL_SERVER_ERROR, format!("a stored artifact revision: {e}"))
    })?;
    let mut b = String::with_capacity(32 * 1024);
    let _ = write!(
        b,
        "<style>{}</style><p class=\"muted\">Revision {} of {} · by {} · {}",
        crate::artifacts::highlight::STYLE,
        rev.number,
        a.revisions,
        esc(&rev.author),
        when(rev.created_at)
    );
    if a.revisions > 1 {
        b.push_str(" · revisions:");
        for n in 1..=a.revisions {
            if n == rev.number {
                let _ = write!(b, " <b>{n}</b>");
            } else {
                let _ = write!(
                    b,
                    " <a href=\"{}\">{n}</a>",
                    esc(&v.url(&format!("/ui/artifacts/{}", a.id), &[("revision", &n.to_string())]))
                );
            }
        }
    }
    b.push_str("</p><section class=\"card artifact\" id=\"artifact\">");
    for block in &blocks {
        crate::artifacts::render_block(block, &mut b);
    }
    b.push_str("</section>");
    Ok(v.page(Nav::Artifacts, &rev.title, "", None, &b))
}
