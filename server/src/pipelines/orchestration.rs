//! An orchestration plan's check: "could this plan run as written, with these agents?"
//! Every violation, each with a code, the JSON pointer of what is at fault (under `/plan`)
//! and a message with the numbers:
//!
//! | code                 | where                               | when                                                   |
//! |----------------------|-------------------------------------|--------------------------------------------------------|
//! | `duplicate_task`     | `/plan/tasks/i/id`                  | an id an earlier task has                              |
//! | `unknown_agent`      | `/plan/agents/i`, `/plan/tasks/i/agent` | no such agent in the workspace, or a task's agent not among the plan's `agents` |
//! | `missing_skill`      | `/plan/tasks/i/skills/j`            | the task's agent lacks the skill                       |
//! | `autonomy_exceeded`  | `/plan/tasks/i/autonomy`            | above the agent's autonomy (the cap delegation uses)   |
//! | `unknown_dependency` | `/plan/tasks/i/depends_on/j`        | no task of that id                                     |
//! | `dependency_cycle`   | `/plan/tasks/i/depends_on/j`        | the edge of the cycle's first task (once per cycle)    |
//! | `budget_exceeded`    | `/plan/budget`                      | the tasks' budgets together beyond the envelope        |
//!
//! Agents have no budgets of their own in this server (a budget is a ticket's), so the
//! envelope is the plan's only; autonomy is the agents' `autonomy` (0..3), the number
//! `Tickets::delegate`'s autonomy gate reads.

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::Serialize;

use crate::store::orchestration::Plan;
use crate::store::Agent;

/// One way a plan cannot run as written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Violation {
    /// unknown_agent, missing_skill, dependency_cycle, unknown_dependency, duplicate_task,
    /// budget_exceeded or autonomy_exceeded.
    pub code: String,
    /// The JSON pointer of what is at fault, in the arguments (`/plan/…`).
    pub pointer: String,
    pub message: String,
}

fn v(code: &str, pointer: String, message: String) -> Violation {
    Violation { code: code.into(), pointer, message }
}

/// Every violation of `plan` against the workspace's `agents`, in the order of the table.
pub fn check(plan: &Plan, workspace: &str, agents: &[Agent]) -> Vec<Violation> {
    let mut out = Vec::new();
    let by_name: HashMap<&str, &Agent> = agents.iter().map(|a| (a.name.as_str(), a)).collect();
    // duplicate_task; the first task of an id is the one dependencies reach.
    let mut first: HashMap<&str, usize> = HashMap::new();
    for (i, t) in plan.tasks.iter().enumerate() {
        if let Some(k) = first.get(t.id.as_str()) {
            out.push(v(
                "duplicate_task",
                format!("/plan/tasks/{i}/id"),
                format!("task id '{}' is /plan/tasks/{k}/id's already: each task's id is its own", t.id),
            ));
        } else {
            first.insert(t.id.as_str(), i);
        }
    }
    // unknown_agent
    for (i, name) in plan.agents.iter().enumerate() {
        if !by_name.contains_key(name.as_str()) {
            out.push(v(
                "unknown_agent",
                format!("/plan/agents/{i}"),
                format!(
                    "no agent named '{name}' in workspace '{workspace}': agents are the operator's (list_agents lists them), and no plan hires one"
                ),
            ));
        }
    }
    for (i, t) in plan.tasks.iter().enumerate() {
        let pointer = format!("/plan/tasks/{i}/agent");
        match by_name.get(t.agent.as_str()) {
            None => out.push(v(
                "unknown_agent",
                pointer,
                format!(
                    "task '{}': no agent named '{}' in workspace '{workspace}' (list_agents lists them)",
                    t.id, t.agent
                ),
            )),
            Some(_) if !plan.agents.contains(&t.agent) => out.push(v(
                "unknown_agent",
                pointer,
                format!(
                    "task '{}': agent '{}' is not one of the plan's agents (/plan/agents: {})",
                    t.id,
                    t.agent,
                    plan.agents.join(", ")
                ),
            )),
            Some(_) => {}
        }
    }
    // missing_skill, autonomy_exceeded
    for (i, t) in plan.tasks.iter().enumerate() {
        let Some(a) = by_name.get(t.agent.as_str()) else { continue };
        for (j, s) in t.skills.iter().enumerate() {
            if !a.skills.iter().any(|x| x == s) {
                let has = if a.skills.is_empty() { "none".to_string() } else { a.skills.join(", ") };
                out.push(v(
                    "missing_skill",
                    format!("/plan/tasks/{i}/skills/{j}"),
                    format!(
                        "task '{}' needs the skill '{s}', and agent '{}' does not have it (its skills: {has})",
                        t.id, a.name
                    ),
                ));
            }
        }
    }
    for (i, t) in plan.tasks.iter().enumerate() {
        let (Some(a), Some(asked)) = (by_name.get(t.agent.as_str()), t.autonomy) else { continue };
        if asked > a.autonomy {
            out.push(v(
                "autonomy_exceeded",
                format!("/plan/tasks/{i}/autonomy"),
                format!(
                    "task '{}' asks autonomy {asked}, beyond agent '{}''s cap of {} (the operator sets it: cc-server agents update --autonomy)",
                    t.id, a.name, a.autonomy
                ),
            ));
        }
    }
    // unknown_dependency
    for (i, t) in plan.tasks.iter().enumerate() {
        for (j, d) in t.depends_on.iter().enumerate() {
            if !first.contains_key(d.as_str()) {
                out.push(v(
                    "unknown_dependency",
                    format!("/plan/tasks/{i}/depends_on/{j}"),
                    format!("task '{}' depends on '{d}', and no task of the plan has that id", t.id),
                ));
            }
        }
    }
    out.extend(cycles(plan, &first));
    // budget_exceeded
    let asked: i64 = plan.tasks.iter().map(|t| t.budget.unwrap_or(0)).sum();
    if asked > plan.budget {
        let parts: Vec<String> =
            plan.tasks.iter().filter_map(|t| t.budget.filter(|b| *b > 0).map(|b| format!("{}: {b}", t.id))).collect();
        out.push(v(
            "budget_exceeded",
            "/plan/budget".into(),
            format!(
                "the tasks ask {asked} together ({}), beyond the plan's envelope of {}",
                parts.join(", "),
                plan.budget
            ),
        ));
    }
    out
}

/// One `dependency_cycle` per strongly connected component that has a cycle (Tarjan's
/// algorithm over the first task of each id), at its first task's edge into the cycle.
fn cycles(plan: &Plan, first: &HashMap<&str, usize>) -> Vec<Violation> {
    let n = plan.tasks.len();
    // Edges from each first-of-its-id task: (dependency's task index, position in depends_on).
    let edges: Vec<Vec<(usize, usize)>> = (0..n)
        .map(|i| {
            if first.get(plan.tasks[i].id.as_str()) != Some(&i) {
                return Vec::new();
            }
            plan.tasks[i]
                .depends_on
                .iter()
                .enumerate()
                .filter_map(|(j, d)| first.get(d.as_str()).map(|k| (*k, j)))
                .collect()
        })
        .collect();
    struct T<'a> {
        edges: &'a [Vec<(usize, usize)>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        sccs: Vec<Vec<usize>>,
    }
    fn visit(t: &mut T<'_>, v: usize) {
        t.index[v] = Some(t.next);
        t.low[v] = t.next;
        t.next += 1;
        t.stack.push(v);
        t.on[v] = true;
        for &(w, _) in &t.edges[v] {
            match t.index[w] {
                None => {
                    visit(t, w);
                    t.low[v] = t.low[v].min(t.low[w]);
                }
                Some(iw) if t.on[w] => t.low[v] = t.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(t.low[v]) == t.index[v] {
            let mut scc = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on[w] = false;
                scc.push(w);
                if w == v {
                    break;
                }
            }
            t.sccs.push(scc);
        }
    }
    let mut t = T {
        edges: &edges,
        index: vec![None; n],
        low: vec![0; n],
        on: vec![false; n],
        stack: vec![],
        next: 0,
        sccs: vec![],
    };
    for v in 0..n {
        if t.index[v].is_none() {
            visit(&mut t, v);
        }
    }
    let mut sccs = t.sccs;
    for s in &mut sccs {
        s.sort_unstable();
    }
    sccs.sort();
    let mut out = Vec::new();
    for scc in sccs {
        let start = scc[0];
        let self_loop = edges[start].iter().any(|(w, _)| *w == start);
        if scc.len() == 1 && !self_loop {
            continue;
        }
        // The shortest way back to `start` inside the component (BFS), for the message.
        let inside = |x: usize| scc.binary_search(&x).is_ok();
        let mut pred: HashMap<usize, (usize, usize)> = HashMap::new();
        let mut queue = std::collections::VecDeque::from([start]);
        let mut back: Option<(usize, usize)> = None;
        'bfs: while let Some(x) = queue.pop_front() {
            for &(w, j) in &edges[x] {
                if w == start {
                    back = Some((x, j));
                    break 'bfs;
                }
                if inside(w) && !pred.contains_key(&w) {
                    pred.insert(w, (x, j));
                    queue.push_back(w);
                }
            }
        }
        let Some((last, _)) = back else { continue };
        let mut path = vec![start];
        let mut at = last;
        let mut rev = Vec::new();
        while at != start {
            rev.push(at);
            at = pred[&at].0;
        }
        path.extend(rev.into_iter().rev());
        path.push(start);
        // The first task's edge into the cycle.
        let second = path[1];
        let j = if path.len() == 2 {
            edges[start].iter().find(|(w, _)| *w == start).map_or(0, |(_, j)| *j)
        } else {
            pred.get(&second).map_or(0, |(_, j)| *j)
        };
        let ids: Vec<&str> = path.iter().map(|i| plan.tasks[*i].id.as_str()).collect();
        out.push(v(
            "dependency_cycle",
            format!("/plan/tasks/{start}/depends_on/{j}"),
            format!("the dependencies close a cycle: {} (each waits for the next)", ids.join(" → ")),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::orchestration::PlanTask;

    fn agent(name: &str, skills: &[&str], autonomy: u8) -> Agent {
        Agent {
            id: format!("ag-{name}"),
            workspace_id: "w".into(),
            name: name.into(),
            profile_id: "rp".into(),
            skills: skills.iter().map(|s| s.to_string()).collect(),
            description: String::new(),
            reports_to: None,
            capacity: 1,
            autonomy,
            created_at: 0,
        }
    }

    fn task(id: &str, agent: &str, deps: &[&str]) -> PlanTask {
        PlanTask {
            id: id.into(),
            title: id.into(),
            description: None,
            agent: agent.into(),
            skills: vec![],
            depends_on: deps.iter().map(|d| d.to_string()).collect(),
            budget: None,
            autonomy: None,
        }
    }

    #[test]
    fn cycles_are_named_once_each_with_their_path() {
        let agents = [agent("dev", &[], 1)];
        let plan = Plan {
            title: None,
            summary: None,
            agents: vec!["dev".into()],
            tasks: vec![
                task("a", "dev", &["c"]),
                task("b", "dev", &["a"]),
                task("c", "dev", &["b"]),
                task("d", "dev", &["d"]),
                task("e", "dev", &["a"]),
            ],
            budget: 0,
        };
        let got = check(&plan, "w", &agents);
        assert_eq!(
            got.iter().map(|v| (v.code.as_str(), v.pointer.as_str())).collect::<Vec<_>>(),
            [("dependency_cycle", "/plan/tasks/0/depends_on/0"), ("dependency_cycle", "/plan/tasks/3/depends_on/0")]
        );
        assert!(got[0].message.contains("a → c → b → a"), "{}", got[0].message);
        assert!(got[1].message.contains("d → d"), "{}", got[1].message);
    }
}
