//! `GET /ui/reviews?ws=ID`: the workspace's code reviews by pages; `GET /ui/reviews/{id}`:
//! one review — its areas (changed symbols, blast radius, summaries), its findings by
//! priority (P0 first), the reviewers' current verdicts and the final one.

use std::fmt::Write;

use axum::extract::{Path, RawQuery, State};
use axum::Extension;

use super::auth::Session;
use super::html::{clip, esc, pill, when, Nav, Params, View};
use super::{queries, Answer, Console, Fail};
use crate::store::reviews::NodePriority;

const PER: u32 = 30;

fn short(sha: &str) -> &str {
    &sha[..sha.len().min(10)]
}

pub(crate) async fn list(State(c): State<Console>, Extension(s): Extension<Session>, q: RawQuery) -> Answer {
    let p = Params::of(q);
    let v = View::new(&c, &s, p.get("ws")).await?;
    let store = &c.app.services.store;
    let pager = p.pager("page", PER);
    let mut ids = queries::reviews(store, &v.ws, pager.offset(), pager.fetch()).await?;
    let more = pager.cut(&mut ids);
    let mut b = String::from("<section class=\"card\">");
    if ids.is_empty() {
        b.push_str("<p class=\"empty\">No reviews yet (start_ai_review starts one).</p>");
    } else {
        b.push_str("<table><thead><tr><th>Review</th><th>Repository</th><th>Change</th><th>Status</th><th>Verdict</th><th>Started</th></tr></thead><tbody>");
        for id in &ids {
            let Some(r) = store.reviews().get(id).await? else { continue };
            let pr = r.pr.map(|n| format!(" · PR #{n}")).unwrap_or_default();
            let _ = write!(
                b,
                "<tr><td><a href=\"{}\"><code>{}</code></a></td><td>{}</td><td><code>{}</code>…<code>{}</code>{pr}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&v.url(&format!("/ui/reviews/{}", r.id), &[])),
                esc(&clip(&r.id, 14)),
                esc(&r.repo),
                esc(&r.base_rev),
                esc(&r.head_rev),
                pill(r.status.as_str()),
                r.verdict.map(|v| pill(v.as_str())).unwrap_or_else(|| "<span class=\"muted\">—</span>".into()),
                when(r.created_at)
            );
        }
        b.push_str("</tbody></table>");
    }
    let page = pager.page.to_string();
    b.push_str(&pager.nav("/ui/reviews", &[("ws", v.ws.as_str()), ("page", &page)], more));
    b.push_str("</section>");
    Ok(v.page(Nav::Reviews, "Reviews", "", None, &b))
}

pub(crate) async fn review(
    State(c): State<Console>,
    Extension(s): Extension<Session>,
    Path(id): Path<String>,
    q: RawQuery,
) -> Answer {
    let p = Params::of(q);
    let store = &c.app.services.store;
    let r = store.reviews().get(&id).await?.ok_or_else(|| Fail::not_found(format!("no review '{id}'")))?;
    let v = View::new(&c, &s, Some(&r.workspace_id)).await?;
    let mut b = String::new();
    let _ = write!(
        b,
        "<p>{} {} <span class=\"muted\">{} · <code>{}</code> → <code>{}</code> · started by {} {}</span></p>",
        pill(r.status.as_str()),
        r.verdict.map(|v| pill(v.as_str())).unwrap_or_default(),
        esc(&r.repo),
        esc(short(&r.base_sha)),
        esc(short(&r.head_sha)),
        esc(&r.created_by),
        when(r.created_at)
    );
    if let Some(summary) = &r.summary {
        let _ = write!(
            b,
            "<section class=\"card\"><h2>Final summary</h2><div class=\"desc\">{}</div></section>",
            crate::artifacts::markdown::render(summary)
        );
    }
    // Findings by priority.
    let mut nodes = store.reviews().nodes(&r.id).await?;
    nodes.sort_by_key(|n| (n.priority, n.created_at));
    b.push_str("<section class=\"card\" id=\"findings\"><h2>Findings</h2>");
    let counts: Vec<String> = [NodePriority::P0, NodePriority::P1, NodePriority::P2, NodePriority::P3]
        .iter()
        .map(|pr| format!("{} {}", pill(pr.as_str()), nodes.iter().filter(|n| n.priority == *pr).count()))
        .collect();
    let _ = write!(b, "<p>{}</p>", counts.join(" &nbsp; "));
    let pager = p.pager("findings", PER);
    let (shown, more) = pager.slice(&nodes);
    if shown.is_empty() {
        b.push_str("<p class=\"empty\">No findings.</p>");
    } else {
        b.push_str("<table><thead><tr><th>Priority</th><th>Finding</th><th>Where</th><th>Status</th><th>By</th></tr></thead><tbody>");
        for n in shown {
            let confirmed = if n.confirmed_by.is_empty() {
                String::new()
            } else {
                format!("<div class=\"muted\">confirmed by {}</div>", esc(&n.confirmed_by.join(", ")))
            };
            let _ = write!(
                b,
                "<tr><td>{}</td><td><b>{}</b><div>{}</div></td><td><code>{}:{}</code><div class=\"muted\">{}</div></td><td>{}</td><td>{}{confirmed}</td></tr>",
                pill(n.priority.as_str()),
                esc(&n.title),
                esc(&clip(&n.body, 400)),
                esc(&n.file),
                n.line,
                esc(&n.area),
                pill(n.status.as_str()),
                esc(&n.author)
            );
        }
        b.push_str("</tbody></table>");
    }
    let keep: Vec<(&str, &str)> =
        ["ws", "findings", "areas"].iter().filter_map(|k| p.get(k).map(|x| (*k, x))).collect();
    b.push_str(&pager.nav(&format!("/ui/reviews/{}", r.id), &keep, more));
    b.push_str("</section><div class=\"grid\"><section class=\"card\" id=\"verdicts\"><h2>Verdicts</h2>");
    let verdicts = store.reviews().verdicts(&r.id, false).await?;
    if verdicts.is_empty() {
        b.push_str("<p class=\"empty\">No verdict yet.</p>");
    } else {
        b.push_str("<table><thead><tr><th>Reviewer</th><th>Verdict</th><th class=\"num\">Confidence</th><th>Why</th></tr></thead><tbody>");
        for vd in &verdicts {
            let _ = write!(
                b,
                "<tr><td>{}</td><td>{}</td><td class=\"num\">{:.2}</td><td>{}</td></tr>",
                esc(&vd.reviewer),
                pill(vd.verdict.as_str()),
                vd.confidence,
                esc(&clip(&vd.explanation, 300))
            );
        }
        b.push_str("</tbody></table>");
    }
    b.push_str("</section><section class=\"card\" id=\"areas\"><h2>Areas</h2>");
    let areas = store.reviews().cohorts(&r.id).await?;
    let ap = p.pager("areas", PER);
    let (shown, more) = ap.slice(&areas);
    if shown.is_empty() {
        b.push_str("<p class=\"empty\">No areas.</p>");
    } else {
        b.push_str("<table><thead><tr><th>Area</th><th class=\"num\">Symbols</th><th class=\"num\">Callers</th><th>Summary</th></tr></thead><tbody>");
        for a in shown {
            let _ = write!(
                b,
                "<tr><td><b>{}</b><div class=\"muted\">{}</div></td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
                esc(&a.area),
                esc(&clip(&a.files.join(", "), 160)),
                a.symbols.len(),
                a.callers,
                esc(a.summary.as_deref().unwrap_or("—"))
            );
        }
        b.push_str("</tbody></table>");
    }
    b.push_str(&ap.nav(&format!("/ui/reviews/{}", r.id), &keep, more));
    b.push_str("</section></div>");
    Ok(v.page(Nav::Reviews, &format!("Review of {}", r.repo), "", None, &b))
}
