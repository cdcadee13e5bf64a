//! `GET /ui/agents?ws=ID`: the org chart (who reports to whom), each agent's presence (its
//! health from its last heartbeat, as list_runtime_health says it) and live runs, and the
//! workspace's runs by pages; `GET /ui/agents/{id}`: one agent and its runs;
//! `GET /ui/runs/{id}`: one run's state and the tail of its log. Live on run changes.

use std::collections::HashMap;
use std::fmt::Write;

use axum::extract::{Path, RawQuery, State};
use axum::Extension;

use super::auth::Session;
use super::html::{clip, esc, pill, when, Nav, Params, View};
use super::{queries, Answer, Console, Fail};
use crate::store::{Agent, Heartbeat, Run};

const PER: u32 = 30;

/// healthy, newly_missing or offline: the config's `[health]` thresholds on the last heartbeat
/// (the rule of list_runtime_health).
fn health(c: &Console, beat: Option<&Heartbeat>) -> &'static str {
    let h = &c.app.services.config.health;
    match beat {
        None => "offline",
        Some(b) => {
            let silent = (crate::store::now() - b.at).max(0) as u64;
            if silent >= h.offline_after_secs {
                "offline"
            } else if silent >= h.missing_after_secs {
                "newly_missing"
            } else {
                "healthy"
            }
        }
    }
}

/// An agent's health as a table cell: the dot, the word, its last status and when.
pub(crate) fn health_cell(c: &Console, beat: Option<&Heartbeat>) -> String {
    let h = health(c, beat);
    let last =
        beat.map(|b| format!(" <span class=\"muted\">{} {}</span>", esc(&b.status), when(b.at))).unwrap_or_default();
    format!("<span class=\"dot {h}\"></span>{}{last}", esc(&h.replace('_', " ")))
}

fn runs_table(b: &mut String, v: &View, runs: &[Run], names: &HashMap<String, String>) {
    if runs.is_empty() {
        b.push_str("<p class=\"empty\">No runs yet.</p>");
        return;
    }
    b.push_str("<table><thead><tr><th>Run</th><th>Agent</th><th>State</th><th>Why</th><th>Started</th><th>Ended</th><th class=\"num\">Exit</th></tr></thead><tbody>");
    for r in runs {
        let agent = names.get(&r.agent_id).map_or(r.agent_id.as_str(), String::as_str);
        let _ = write!(
            b,
            "<tr><td><a href=\"{}\"><code>{}</code></a></td><td><a href=\"{}\">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td></tr>",
            esc(&v.url(&format!("/ui/runs/{}", r.id), &[])),
            esc(&clip(&r.id, 14)),
            esc(&v.url(&format!("/ui/agents/{}", r.agent_id), &[])),
            esc(agent),
            pill(r.status.as_str()),
            esc(&r.reason),
            when(r.started_at.unwrap_or(0)),
            when(r.ended_at.unwrap_or(0)),
            r.exit_code.map(|c| c.to_string()).unwrap_or_default()
        );
    }
    b.push_str("</tbody></table>");
}

async fn runs_of(c: &Console, ids: &[String]) -> Result<Vec<Run>, Fail> {
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        if let Some(r) = c.app.services.store.agents().run(id).await? {
            out.push(r);
        }
    }
    Ok(out)
}

/// What the org chart is drawn from: the workspace's agents, their heartbeats, their live
/// runs (running, queued) by agent id.
struct Chart<'a> {
    all: &'a [Agent],
    beats: &'a [Heartbeat],
    live: &'a HashMap<String, (i64, i64)>,
}

fn tree(b: &mut String, c: &Console, v: &View, chart: &Chart<'_>, parent: Option<&str>, depth: usize) {
    let Chart { all, beats, live } = *chart;
    let kids: Vec<&Agent> = all
        .iter()
        .filter(|a| match parent {
            None => a.reports_to.as_deref().is_none_or(|r| !all.iter().any(|x| x.id == r)),
            Some(p) => a.reports_to.as_deref() == Some(p),
        })
        .collect();
    if kids.is_empty() || depth > 32 {
        return;
    }
    b.push_str(if depth == 0 { "<ul class=\"tree\">" } else { "<ul>" });
    for a in kids {
        let (r, q) = live.get(&a.id).copied().unwrap_or_default();
        let beat = beats.iter().find(|h| h.agent_id == a.id);
        let _ = write!(
            b,
            "<li><span class=\"node\"><span class=\"dot {}\"></span><a href=\"{}\">{}</a><span class=\"runs\">{}</span>{}</span>",
            health(c, beat),
            esc(&v.url(&format!("/ui/agents/{}", a.id), &[])),
            esc(&a.name),
            esc(&clip(&a.description, 60)),
            if r + q > 0 { format!("<span class=\"pill s-running\">{r} running · {q} queued</span>") } else { String::new() }
        );
        tree(b, c, v, chart, Some(&a.id), depth + 1);
        b.push_str("</li>");
    }
    b.push_str("</ul>");
}

pub(crate) async fn page(State(c): State<Console>, Extension(s): Extension<Session>, q: RawQuery) -> Answer {
    let p = Params::of(q);
    let v = View::new(&c, &s, p.get("ws")).await?;
    let store = &c.app.services.store;
    let all = store.agents().list(&v.ws).await?;
    let beats = store.agents().heartbeats(&v.ws).await?;
    let live = queries::live_runs(store, &v.ws).await?;
    let names: HashMap<String, String> = all.iter().map(|a| (a.id.clone(), a.name.clone())).collect();
    let mut b = String::with_capacity(16 * 1024);
    b.push_str("<div class=\"grid\"><section class=\"card\" id=\"org\"><h2>Org chart</h2>");
    if all.is_empty() {
        b.push_str(
            "<p class=\"empty\">No agents yet (the operator hires them: <code>cc-server agents add</code>).</p>",
        );
    } else {
        tree(&mut b, &c, &v, &Chart { all: &all, beats: &beats, live: &live }, None, 0);
    }
    b.push_str("</section><section class=\"card\" id=\"presence\"><h2>Presence</h2>");
    let pager = p.pager("agents", PER);
    let (shown, more) = pager.slice(&all);
    if !shown.is_empty() {
        b.push_str("<table><thead><tr><th>Agent</th><th>Health</th><th class=\"num\">Running</th><th class=\"num\">Queued</th><th class=\"num\">Capacity</th></tr></thead><tbody>");
        for a in shown {
            let (r, q) = live.get(&a.id).copied().unwrap_or_default();
            let _ = write!(
                b,
                "<tr><td><a href=\"{}\">{}</a></td><td>{}</td><td class=\"num\">{r}</td><td class=\"num\">{q}</td><td class=\"num\">{}</td></tr>",
                esc(&v.url(&format!("/ui/agents/{}", a.id), &[])),
                esc(&a.name),
                health_cell(&c, beats.iter().find(|h| h.agent_id == a.id)),
                a.capacity
            );
        }
        b.push_str("</tbody></table>");
    }
    let keep: Vec<(&str, &str)> = ["ws", "agents", "runs"].iter().filter_map(|k| p.get(k).map(|x| (*k, x))).collect();
    b.push_str(&pager.nav("/ui/agents", &keep, more));
    b.push_str("</section></div><section class=\"card\" id=\"runs\"><h2>Runs</h2>");
    let rp = p.pager("runs", PER);
    let mut ids = queries::runs(store, &v.ws, None, rp.offset(), rp.fetch()).await?;
    let more = rp.cut(&mut ids);
    runs_table(&mut b, &v, &runs_of(&c, &ids).await?, &names);
    b.push_str(&rp.nav("/ui/agents", &keep, more));
    b.push_str("</section>");
    Ok(v.page(Nav::Agents, "Agents", "run", None, &b))
}

pub(crate) async fn agent(
    State(c): State<Console>,
    Extension(s): Extension<Session>,
    Path(id): Path<String>,
    q: RawQuery,
) -> Answer {
    let p = Params::of(q);
    let store = &c.app.services.store;
    let a = store.agents().get(&id).await?.ok_or_else(|| Fail::not_found(format!("no agent '{id}'")))?;
    let v = View::new(&c, &s, Some(&a.workspace_id)).await?;
    let beats = store.agents().heartbeats(&v.ws).await?;
    let beat = beats.iter().find(|h| h.agent_id == a.id);
    let boss = match &a.reports_to {
        Some(r) => store.agents().get(r).await?.map(|b| b.name),
        None => None,
    };
    let profile = store.agents().profile(&v.ws, &a.profile_id).await?;
    let mut b = String::new();
    b.push_str("<section class=\"card\" id=\"agent\"><h2>Agent</h2><dl class=\"facts\">");
    let _ = write!(
        b,
        "<dt>Health</dt><dd>{}</dd><dt>Description</dt><dd>{}</dd><dt>Reports to</dt><dd>{}</dd><dt>Runtime</dt><dd>{}</dd>\
         <dt>Capacity</dt><dd>{} runs at once</dd><dt>Autonomy</dt><dd>{} of 3</dd><dt>Skills</dt><dd>{}</dd><dt>Hired</dt><dd>{}</dd>",
        health_cell(&c, beat),
        esc(&a.description),
        esc(boss.as_deref().unwrap_or("nobody (top of the chart)")),
        esc(&profile.map(|p| format!("{} ({})", p.name, p.family.as_str())).unwrap_or_else(|| a.profile_id.clone())),
        a.capacity,
        a.autonomy,
        if a.skills.is_empty() { "—".into() } else { esc(&a.skills.join(", ")) },
        when(a.created_at)
    );
    if let Some(note) = beat.and_then(|b| b.note.as_deref()) {
        let _ = write!(b, "<dt>Last note</dt><dd>{}</dd>", esc(note));
    }
    b.push_str("</dl></section><section class=\"card\" id=\"runs\"><h2>Runs</h2>");
    let rp = p.pager("runs", PER);
    let mut ids = queries::runs(store, &v.ws, Some(&a.id), rp.offset(), rp.fetch()).await?;
    let more = rp.cut(&mut ids);
    let runs = runs_of(&c, &ids).await?;
    let names = HashMap::from([(a.id.clone(), a.name.clone())]);
    runs_table(&mut b, &v, &runs, &names);
    let page = rp.page.to_string();
    b.push_str(&rp.nav(&format!("/ui/agents/{}", a.id), &[("ws", v.ws.as_str()), ("runs", &page)], more));
    b.push_str("</section>");
    if let Some(r) = runs.iter().find(|r| r.log_tail.is_some()) {
        let _ = write!(
            b,
            "<section class=\"card\"><h2>Log tail of the latest run <a class=\"more\" href=\"{}\">Run →</a></h2><pre class=\"log\">{}</pre></section>",
            esc(&v.url(&format!("/ui/runs/{}", r.id), &[])),
            esc(r.log_tail.as_deref().unwrap_or(""))
        );
    }
    Ok(v.page(Nav::Agents, &a.name, "run", None, &b))
}

pub(crate) async fn run(
    State(c): State<Console>,
    Extension(s): Extension<Session>,
    Path(id): Path<String>,
    q: RawQuery,
) -> Answer {
    let _ = Params::of(q);
    let store = &c.app.services.store;
    let r = store.agents().run(&id).await?.ok_or_else(|| Fail::not_found(format!("no run '{id}'")))?;
    let v = View::new(&c, &s, Some(&r.workspace_id)).await?;
    let agent = store.agents().get(&r.agent_id).await?.map_or(r.agent_id.clone(), |a| a.name);
    let ticket = match &r.ticket_id {
        Some(t) => store.tickets().get(t).await?,
        None => None,
    };
    let mut b = String::from("<section class=\"card\" id=\"run\"><h2>Run</h2><dl class=\"facts\">");
    let _ = write!(
        b,
        "<dt>State</dt><dd>{}</dd><dt>Agent</dt><dd><a href=\"{}\">{}</a></dd><dt>Why</dt><dd>{}</dd><dt>Queued</dt><dd>{}</dd>\
         <dt>Started</dt><dd>{}</dd><dt>Ended</dt><dd>{}</dd>",
        pill(r.status.as_str()),
        esc(&v.url(&format!("/ui/agents/{}", r.agent_id), &[])),
        esc(&agent),
        esc(&r.reason),
        when(r.created_at),
        when(r.started_at.unwrap_or(0)),
        when(r.ended_at.unwrap_or(0))
    );
    if let Some(t) = &ticket {
        let _ = write!(
            b,
            "<dt>Ticket</dt><dd><a href=\"{}\">{}</a> {}</dd>",
            esc(&v.url(&format!("/ui/tickets/{}", t.key), &[])),
            esc(&t.key),
            esc(&t.title)
        );
    }
    if let Some(code) = r.exit_code {
        let _ = write!(b, "<dt>Exit code</dt><dd>{code}</dd>");
    }
    if let Some(e) = &r.error {
        let _ = write!(b, "<dt>Error</dt><dd>{}</dd>", esc(e));
    }
    if !r.kept.is_empty() {
        let _ = write!(b, "<dt>Worktrees kept</dt><dd>{}</dd>", esc(&r.kept.join(", ")));
    }
    let _ = write!(b, "</dl><h3>Brief</h3><pre>{}</pre></section>", esc(&r.brief));
    let _ = write!(
        b,
        "<section class=\"card\" id=\"log\"><h2>Log tail</h2>{}</section>",
        match &r.log_tail {
            Some(t) if !t.is_empty() => format!("<pre class=\"log\">{}</pre>", esc(t)),
            _ if r.status.live() => "<p class=\"empty\">The log is kept when the run ends.</p>".into(),
            _ => "<p class=\"empty\">No output.</p>".into(),
        }
    );
    Ok(v.page(Nav::Agents, &format!("Run of {agent}"), "run", None, &b))
}
