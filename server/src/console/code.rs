//! `GET /ui/code?ws=ID[&q=QUERY]`: the code index — the workspace's repositories (files,
//! symbols, when last indexed, or why the index cannot be used) and a search box over
//! search_code. Both are the tools an agent calls (list_repos, search_code), called here by
//! the operator through the dispatcher: one implementation, the same answers.

use std::fmt::Write;

use axum::extract::{RawQuery, State};
use axum::Extension;
use serde_json::{json, Value};

use super::auth::Session;
use super::html::{clip, esc, when, Nav, Params, View};
use super::{Answer, Console, Fail};
use crate::mcp::dispatch::{CallOutcome, Caller, Conversation};
use crate::mcp::policy::Mode;
use crate::mcp::principal::Principal;

const PER: u32 = 20;
/// search_code's most results: the last page reachable.
const MAX_RESULTS: u32 = 200;

/// One tool call as the operator; its structured result, or a failure saying what the tool said.
async fn call(c: &Console, tool: &str, args: Value) -> Result<Value, Fail> {
    let caller = Caller {
        conversation: Conversation::new(Mode::Chat),
        principal: Principal::operator(),
        peer: None,
        can_elicit: false,
    };
    let surface = crate::mcp::surface::Surface::parse(None, true).map_err(Fail::bad_request)?;
    let out = c
        .app
        .dispatcher
        .call(
            c.app.services.clone(),
            &surface,
            &caller,
            tool,
            args.as_object().cloned(),
            tokio_util::sync::CancellationToken::new(),
            None,
        )
        .await;
    match out {
        CallOutcome::Ok(o) => Ok(o.value),
        CallOutcome::Err(e) => Err(Fail::bad_request(format!("{tool}: {}", e.message))),
        CallOutcome::Unknown(n) => Err(Fail::not_found(format!("this server has no tool {n}"))),
    }
}

pub(crate) async fn page(State(c): State<Console>, Extension(s): Extension<Session>, q: RawQuery) -> Answer {
    let p = Params::of(q);
    let v = View::new(&c, &s, p.get("ws")).await?;
    let repos = call(&c, "list_repos", json!({"workspace_id": v.ws})).await?;
    let repos = repos["repos"].as_array().cloned().unwrap_or_default();
    let mut b = String::with_capacity(16 * 1024);
    b.push_str("<section class=\"card\" id=\"repos\"><h2>Repositories</h2>");
    let rp = p.pager("repos", PER);
    let (shown, more) = rp.slice(&repos);
    if shown.is_empty() {
        b.push_str("<p class=\"empty\">No repository in this workspace (<code>cc-server index PATH</code>, then register it).</p>");
    } else {
        b.push_str("<table><thead><tr><th>Repository</th><th class=\"num\">Files</th><th class=\"num\">Symbols</th><th>Last index</th><th>Checkout</th></tr></thead><tbody>");
        for r in shown {
            let problem =
                r["problem"].as_str().map(|p| format!("<div class=\"flash bad\">{}</div>", esc(p))).unwrap_or_default();
            let _ = write!(
                b,
                "<tr><td><b>{}</b>{problem}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td><td><code>{}</code></td></tr>",
                esc(r["name"].as_str().unwrap_or("")),
                r["files"].as_u64().unwrap_or(0),
                r["symbols"].as_u64().unwrap_or(0),
                when(r["indexed_at"].as_i64().unwrap_or(0)),
                esc(r["root"].as_str().unwrap_or(""))
            );
        }
        b.push_str("</tbody></table>");
    }
    let query = p.get("q").unwrap_or("");
    let keep: Vec<(&str, &str)> =
        ["ws", "q", "repos", "page"].iter().filter_map(|k| p.get(k).map(|x| (*k, x))).collect();
    b.push_str(&rp.nav("/ui/code", &keep, more));
    let _ = write!(
        b,
        "</section><section class=\"card\" id=\"search\"><h2>Search the code</h2><form class=\"search\" method=\"get\" action=\"/ui/code\">\
         <input type=\"hidden\" name=\"ws\" value=\"{}\"><input type=\"search\" name=\"q\" value=\"{}\" placeholder=\"A symbol, or what it does (search_code)\" maxlength=\"500\">\
         <button class=\"btn\" type=\"submit\">Search</button></form>",
        esc(&v.ws),
        esc(query)
    );
    if !query.is_empty() && !repos.is_empty() {
        let sp = p.pager("page", PER);
        let want = (sp.page * PER + 1).min(MAX_RESULTS);
        let out = call(&c, "search_code", json!({"workspace_id": v.ws, "query": query, "limit": want})).await?;
        let hits = out["results"].as_array().cloned().unwrap_or_default();
        let (shown, more) = sp.slice(&hits);
        if shown.is_empty() {
            b.push_str("<p class=\"empty\">Nothing found.</p>");
        } else {
            b.push_str("<table><thead><tr><th class=\"num\">#</th><th>Symbol</th><th>Kind</th><th>Where</th><th class=\"num\">Score</th></tr></thead><tbody>");
            for h in shown {
                let sym = &h["symbol"];
                let _ = write!(
                    b,
                    "<tr><td class=\"num\">{}</td><td><b>{}</b><div class=\"mono muted\">{}</div></td><td>{}</td><td><code>{}</code> <span class=\"muted\">{}</span></td><td class=\"num\">{:.3}</td></tr>",
                    h["rank"].as_u64().unwrap_or(0),
                    esc(sym["qualified_name"].as_str().unwrap_or("")),
                    esc(&clip(sym["signature"].as_str().unwrap_or(""), 140)),
                    esc(sym["kind"].as_str().unwrap_or("")),
                    esc(sym["location"].as_str().unwrap_or("")),
                    esc(sym["repo"].as_str().unwrap_or("")),
                    h["score"].as_f64().unwrap_or(0.0)
                );
            }
            b.push_str("</tbody></table>");
        }
        let _ = write!(b, "<p class=\"muted\">Ranking: {}</p>", esc(out["semantic"].as_str().unwrap_or("")));
        b.push_str(&sp.nav("/ui/code", &keep, more && sp.page * PER < MAX_RESULTS));
    }
    b.push_str("</section>");
    Ok(v.page(Nav::Code, "Code index", "", None, &b))
}
