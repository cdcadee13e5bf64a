//! Plan tools: submit_plan (plan mode's output contract: a typed [`PlanDocument`], kept per
//! conversation and versioned on resubmission, readable as `cc://{workspace_id}/plans/{plan_id}`),
//! create_playbook (a named, versioned plan template with typed `{{param}}` placeholders) and
//! run_playbook (a playbook filled with checked values: a plan put on the approvals board for
//! the operator). What a plan's JSON Schema cannot say is checked here ([`plan_rules`]): step
//! ids are unique, `depends_on` names steps that exist, and the dependencies have no cycle —
//! every error with the JSON pointer of the value at fault, all of them at once.

mod create_playbook;
mod run_playbook;
mod submit_plan;

use std::collections::{BTreeMap, HashMap};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::mcp::tool::{Registry, ToolError};
use crate::store::{Plan, PlanVersion};

/// The area's tools (the artifact tools share their set: `mcp::tools::artifacts`).
pub fn tools(r: &mut Registry) {
    r.add(submit_plan::DECL, submit_plan::submit_plan);
    r.add(create_playbook::DECL, create_playbook::create_playbook);
    r.add(run_playbook::DECL, run_playbook::run_playbook);
}

/// A plan: what is to be done, in steps that may depend on each other.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanDocument {
    /// The plan in one line.
    #[schemars(length(min = 1, max = 500))]
    pub title: String,
    /// What the plan achieves and how, for the person who approves it (markdown).
    #[schemars(length(max = 20000))]
    pub summary: String,
    /// The steps. A step starts when every step in its depends_on is done.
    #[schemars(length(min = 1, max = 200))]
    pub steps: Vec<PlanStep>,
    /// What could go wrong, one risk per item.
    #[serde(default)]
    #[schemars(length(max = 100), inner(length(min = 1, max = 2000)))]
    pub risks: Vec<String>,
    /// How the result is judged done, one criterion per item.
    #[serde(default)]
    #[schemars(length(max = 100), inner(length(min = 1, max = 2000)))]
    pub acceptance_criteria: Vec<String>,
}

/// One step of a plan.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanStep {
    /// The step's id, unique in the plan (what depends_on names).
    #[schemars(length(min = 1, max = 100))]
    pub id: String,
    /// The step in one line.
    #[schemars(length(min = 1, max = 500))]
    pub title: String,
    /// How it is done (markdown).
    #[serde(default)]
    #[schemars(length(max = 20000))]
    pub details: String,
    /// Who does it: agents' names, people, teams.
    #[serde(default)]
    #[schemars(length(max = 20), inner(length(min = 1, max = 200)))]
    pub owners: Vec<String>,
    /// The ids of the steps that must be done first.
    #[serde(default)]
    #[schemars(length(max = 200), inner(length(min = 1, max = 100)))]
    pub depends_on: Vec<String>,
}

/// One rule a value breaks: where (a JSON pointer) and what.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Problem {
    pub pointer: String,
    pub message: String,
}

impl Problem {
    pub fn new(pointer: impl Into<String>, message: impl Into<String>) -> Problem {
        let pointer = pointer.into();
        let message = format!("{pointer}: {}", message.into());
        Problem { pointer, message }
    }
}

/// One invalid-input error for all of `problems` (not empty): the first one's pointer, every
/// message, and each in `data.errors`.
pub fn problems_error(problems: &[Problem]) -> ToolError {
    let message = match problems {
        [one] => one.message.clone(),
        many => {
            format!("{} errors: {}", many.len(), many.iter().map(|p| p.message.as_str()).collect::<Vec<_>>().join("; "))
        }
    };
    ToolError::invalid(&problems[0].pointer, message).with_data(json!({ "errors": problems }))
}

/// What a plan's JSON Schema cannot say, each broken rule with its pointer under `at`
/// (`/plan`): step ids are unique, each depends_on names another step that exists (once),
/// and the dependencies have no cycle (each cycle named by its steps, at the dependency
/// that closes it).
pub fn plan_rules(plan: &PlanDocument, at: &str) -> Vec<Problem> {
    let mut out = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (i, s) in plan.steps.iter().enumerate() {
        if let Some(first) = index.get(s.id.as_str()) {
            out.push(Problem::new(
                format!("{at}/steps/{i}/id"),
                format!("'{}' is already the id of step {first} ({at}/steps/{first}/id); step ids are unique", s.id),
            ));
        } else {
            index.insert(&s.id, i);
        }
    }
    let ids = || plan.steps.iter().map(|s| s.id.as_str()).collect::<Vec<_>>().join(", ");
    // The dependency edges that name a step: step -> the steps it depends on (with k).
    let mut deps: Vec<Vec<(usize, usize)>> = vec![Vec::new(); plan.steps.len()];
    for (i, s) in plan.steps.iter().enumerate() {
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (k, d) in s.depends_on.iter().enumerate() {
            let p = format!("{at}/steps/{i}/depends_on/{k}");
            if let Some(first) = seen.insert(d, k) {
                out.push(Problem::new(p, format!("'{d}' is listed already ({at}/steps/{i}/depends_on/{first})")));
                continue;
            }
            match index.get(d.as_str()) {
                None => out.push(Problem::new(p, format!("no step has the id '{d}' (the steps: {})", ids()))),
                Some(&j) if j == i => {
                    out.push(Problem::new(p, format!("step '{d}' depends on itself (a cycle: {d} -> {d})")))
                }
                Some(&j) => deps[i].push((j, k)),
            }
        }
    }
    // Cycles: a depth-first walk; an edge back into the walk's path closes one.
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        OnPath,
        Done,
    }
    let mut mark = vec![Mark::New; plan.steps.len()];
    for start in 0..plan.steps.len() {
        if mark[start] != Mark::New {
            continue;
        }
        // (step, next edge to look at); `path` holds the steps being walked, in order.
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        let mut path: Vec<usize> = vec![start];
        mark[start] = Mark::OnPath;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&(to, k)) = deps[node].get(*next) {
                *next += 1;
                match mark[to] {
                    Mark::New => {
                        mark[to] = Mark::OnPath;
                        stack.push((to, 0));
                        path.push(to);
                    }
                    Mark::OnPath => {
                        let from = path.iter().position(|&x| x == to).expect("on the path");
                        // The cycle in the direction of the dependencies: node depends on to.
                        let mut names: Vec<&str> = path[from..].iter().map(|&x| plan.steps[x].id.as_str()).collect();
                        names.push(plan.steps[to].id.as_str());
                        out.push(Problem::new(
                            format!("{at}/steps/{node}/depends_on/{k}"),
                            format!(
                                "a dependency cycle: {} (each step depends on the next; one must not)",
                                names.join(" -> ")
                            ),
                        ));
                    }
                    Mark::Done => {}
                }
            } else {
                mark[node] = Mark::Done;
                stack.pop();
                path.pop();
            }
        }
    }
    out
}

/// A parameter's declared type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ParamType {
    String,
    Integer,
    Boolean,
    /// One of `values`.
    Enum,
}

impl ParamType {
    fn as_str(self) -> &'static str {
        match self {
            ParamType::String => "string",
            ParamType::Integer => "integer",
            ParamType::Boolean => "boolean",
            ParamType::Enum => "enum",
        }
    }
}

/// A playbook's parameter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ParamSpec {
    /// string, integer, boolean, or enum (one of `values`).
    #[serde(rename = "type")]
    pub kind: ParamType,
    /// The values an enum parameter may take.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 100), inner(length(min = 1, max = 200)))]
    pub values: Option<Vec<String>>,
    /// Whether run_playbook must be given it (default: true unless it has a default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// The value used when run_playbook is not given one (of the parameter's type).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    /// What it means, for whoever runs the playbook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 2000))]
    pub description: Option<String>,
}

/// How `v` reads in a message: its JSON type and value (`the string "3"`).
fn shown(v: &Value) -> String {
    let kind = match v {
        Value::Null => return "null".to_string(),
        Value::Bool(_) => "the boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "the integer",
        Value::Number(_) => "the number",
        Value::String(_) => "the string",
        Value::Array(_) => return "an array".to_string(),
        Value::Object(_) => return "an object".to_string(),
    };
    let mut text = v.to_string();
    if text.len() > 80 {
        let mut cut = 77;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push_str("...");
    }
    format!("{kind} {text}")
}

/// Whether `v` is a value of parameter `p` (`None`), or what is wrong with it.
pub fn check_value(p: &ParamSpec, v: &Value) -> Option<String> {
    let ok = match p.kind {
        ParamType::String => v.is_string(),
        ParamType::Integer => v.is_i64() || v.is_u64(),
        ParamType::Boolean => v.is_boolean(),
        ParamType::Enum => {
            let values = p.values.as_deref().unwrap_or_default();
            return match v.as_str() {
                Some(s) if values.iter().any(|x| x == s) => None,
                Some(_) => Some(format!("expected one of {}; found {}", values.join(", "), shown(v))),
                None => Some(format!("expected a string, one of {}; found {}", values.join(", "), shown(v))),
            };
        }
    };
    (!ok).then(|| format!("expected {}; found {}", article(p.kind), shown(v)))
}

fn article(t: ParamType) -> &'static str {
    match t {
        ParamType::String => "a string",
        ParamType::Integer => "an integer",
        ParamType::Boolean => "a boolean (true or false)",
        ParamType::Enum => "an enum value",
    }
}

/// Whether a parameter's name is one a placeholder can hold.
fn is_name(s: &str) -> bool {
    let mut c = s.chars();
    c.next().is_some_and(|f| f.is_ascii_alphabetic() || f == '_') && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}

/// A piece of a template string: text, or a `{{name}}` placeholder.
enum Piece<'a> {
    Text(&'a str),
    Param(&'a str),
}

/// Splits `s` into text and placeholders (`{{name}}`, spaces inside allowed), and says what
/// is malformed, if anything (the first such; a malformed one is kept as text).
fn pieces(s: &str) -> (Vec<Piece<'_>>, Option<String>) {
    let mut out = Vec::new();
    let mut error = None;
    let mut rest = s;
    while let Some(open) = rest.find("{{") {
        if open > 0 {
            out.push(Piece::Text(&rest[..open]));
        }
        let after = &rest[open + 2..];
        let Some(close) = after.find("}}") else {
            error.get_or_insert_with(|| {
                format!(
                    "'{{{{' opens a placeholder that '}}}}' never closes (after \"{}\"); write {{{{name}}}}",
                    snippet(&rest[..open])
                )
            });
            out.push(Piece::Text(&rest[open..]));
            return (out, error);
        };
        let name = after[..close].trim();
        if is_name(name) {
            out.push(Piece::Param(name));
        } else {
            error.get_or_insert_with(|| {
                format!(
                    "'{{{{{}}}}}' is not a placeholder: a placeholder is {{{{name}}}}, the name of a declared parameter (letters, digits, _)",
                    &after[..close]
                )
            });
            out.push(Piece::Text(&rest[open..open + 2 + close + 2]));
        }
        rest = &after[close + 2..];
    }
    if !rest.is_empty() {
        out.push(Piece::Text(rest));
    }
    (out, error)
}

fn snippet(s: &str) -> &str {
    let mut start = s.len().saturating_sub(30);
    while !s.is_char_boundary(start) {
        start += 1;
    }
    &s[start..]
}

/// Every string of `v` with its JSON pointer under `at`.
fn strings<'a>(v: &'a Value, at: &str, out: &mut Vec<(String, &'a str)>) {
    match v {
        Value::String(s) => out.push((at.to_string(), s)),
        Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| strings(x, &format!("{at}/{i}"), out)),
        Value::Object(o) => {
            for (k, x) in o {
                strings(x, &format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")), out)
            }
        }
        _ => {}
    }
}

/// A template's placeholders checked against its declared parameters: each placeholder
/// declared, each parameter used, every declaration consistent (enum values, defaults of the
/// parameter's type, required or defaulted). `plan` is at `/plan`, the parameters at `/params`.
pub fn template_problems(plan: &Value, params: &BTreeMap<String, ParamSpec>) -> Vec<Problem> {
    let mut out = Vec::new();
    let declared = || params.keys().map(String::as_str).collect::<Vec<_>>().join(", ");
    for (name, p) in params {
        let at = format!("/params/{}", name.replace('~', "~0").replace('/', "~1"));
        if !is_name(name) {
            out.push(Problem::new(
                &at,
                format!("'{name}' is not a parameter name: letters, digits and _, not starting with a digit"),
            ));
        }
        match (p.kind, &p.values) {
            (ParamType::Enum, None) => {
                out.push(Problem::new(format!("{at}/values"), "an enum parameter lists its values"));
            }
            (ParamType::Enum, Some(values)) => {
                let mut seen = std::collections::HashSet::new();
                for (i, v) in values.iter().enumerate() {
                    if !seen.insert(v) {
                        out.push(Problem::new(format!("{at}/values/{i}"), format!("'{v}' is listed already")));
                    }
                }
            }
            (kind, Some(_)) => out.push(Problem::new(
                format!("{at}/values"),
                format!("only an enum parameter has values; this one is of type {}", kind.as_str()),
            )),
            (_, None) => {}
        }
        match (&p.default, p.required) {
            (Some(_), Some(true)) => out.push(Problem::new(
                format!("{at}/required"),
                "a required parameter has no default (leave out required, or the default)",
            )),
            (None, Some(false)) => out.push(Problem::new(
                format!("{at}/default"),
                "an optional parameter needs a default: the value used when none is given",
            )),
            _ => {}
        }
        if let Some(d) = &p.default {
            if p.kind != ParamType::Enum || p.values.is_some() {
                if let Some(why) = check_value(p, d) {
                    out.push(Problem::new(format!("{at}/default"), why));
                }
            }
        }
    }
    let mut texts = Vec::new();
    strings(plan, "/plan", &mut texts);
    let mut used = std::collections::HashSet::new();
    for (at, s) in texts {
        let (ps, malformed) = pieces(s);
        if let Some(why) = malformed {
            out.push(Problem::new(&at, why));
        }
        for piece in ps {
            let Piece::Param(name) = piece else { continue };
            if params.contains_key(name) {
                used.insert(name.to_string());
            } else {
                let known = if params.is_empty() { "none".to_string() } else { declared() };
                out.push(Problem::new(
                    &at,
                    format!("the placeholder {{{{{name}}}}} is not a declared parameter (declared: {known}); declare it in params"),
                ));
            }
        }
    }
    for name in params.keys() {
        if !used.contains(name) {
            out.push(Problem::new(
                format!("/params/{}", name.replace('~', "~0").replace('/', "~1")),
                format!("'{name}' is declared but no {{{{{name}}}}} in the plan uses it"),
            ));
        }
    }
    out
}

/// `plan` with every placeholder replaced by its value's text (a template that
/// [`template_problems`] passed).
pub fn fill(plan: &Value, values: &BTreeMap<String, Value>) -> Value {
    match plan {
        Value::String(s) => {
            let (ps, _) = pieces(s);
            let mut out = String::with_capacity(s.len());
            for p in ps {
                match p {
                    Piece::Text(t) => out.push_str(t),
                    Piece::Param(name) => match values.get(name) {
                        Some(Value::String(v)) => out.push_str(v),
                        Some(v) => out.push_str(&v.to_string()),
                        None => {}
                    },
                }
            }
            Value::String(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| fill(x, values)).collect()),
        Value::Object(o) => Value::Object(o.iter().map(|(k, x)| (k.clone(), fill(x, values))).collect()),
        other => other.clone(),
    }
}

/// What submit_plan and run_playbook answer: the plan, the version written and the
/// resource that reads it.
#[derive(Serialize, JsonSchema)]
pub struct PlanOut {
    pub plan: Plan,
    pub version: PlanVersion,
    /// The plan as a resource (resources/read): its latest version.
    pub uri: String,
    /// The plan's name, for the resource link.
    pub name: String,
}

impl PlanOut {
    pub fn new(plan: Plan, version: PlanVersion) -> PlanOut {
        let uri = crate::mcp::resources::plan_uri(&plan.workspace_id, &plan.id);
        let name = plan.title.clone();
        PlanOut { plan, version, uri, name }
    }
}

/// Reads `cc://{workspace}/plans/{id}` (its latest version) or `…/versions/{n}`: the plan and
/// that version's document, as JSON. A plan the principal may not see is answered as one that
/// does not exist.
pub async fn read_resource(
    services: &crate::services::Services,
    principal: &crate::mcp::principal::Principal,
    workspace: &str,
    id: &str,
    version: Option<&str>,
) -> Result<String, String> {
    let missing = || format!("no plan '{id}' in workspace '{workspace}'");
    let plans = services.store.plans();
    let plan = match plans.get(id).await.map_err(|e| e.to_string())? {
        Some(p) if p.workspace_id == workspace && principal.sees(workspace) => p,
        _ => return Err(missing()),
    };
    let n =
        match version {
            None => plan.version,
            Some(v) => v.parse::<i64>().ok().filter(|n| *n >= 1).ok_or_else(|| {
                format!("'{v}' is not a version of plan '{id}' (its versions: 1 to {})", plan.version)
            })?,
        };
    let Some(v) = plans.version(id, n).await.map_err(|e| e.to_string())? else {
        return Err(format!("plan '{id}' has no version {n} (its versions: 1 to {})", plan.version));
    };
    Ok(serde_json::to_string_pretty(&json!({ "plan": plan, "version": v })).expect("a plan serializes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(steps: &[(&str, &[&str])]) -> PlanDocument {
        PlanDocument {
            title: "t".into(),
            summary: String::new(),
            steps: steps
                .iter()
                .map(|(id, deps)| PlanStep {
                    id: id.to_string(),
                    title: id.to_string(),
                    details: String::new(),
                    owners: vec![],
                    depends_on: deps.iter().map(|d| d.to_string()).collect(),
                })
                .collect(),
            risks: vec![],
            acceptance_criteria: vec![],
        }
    }

    fn pointers(p: &PlanDocument) -> Vec<String> {
        plan_rules(p, "/plan").into_iter().map(|p| p.pointer).collect()
    }

    #[test]
    fn rules_name_each_pointer() {
        assert!(pointers(&plan(&[("a", &[]), ("b", &["a"]), ("c", &["a", "b"])])).is_empty());
        assert_eq!(pointers(&plan(&[("a", &[]), ("a", &[])])), ["/plan/steps/1/id"]);
        assert_eq!(pointers(&plan(&[("a", &[]), ("b", &["a", "x"])])), ["/plan/steps/1/depends_on/1"]);
        assert_eq!(pointers(&plan(&[("a", &["a"])])), ["/plan/steps/0/depends_on/0"]);
        assert_eq!(pointers(&plan(&[("a", &[]), ("b", &["a", "a"])])), ["/plan/steps/1/depends_on/1"]);
        let p = plan(&[("a", &["c"]), ("b", &["a"]), ("c", &["b"]), ("d", &["c"])]);
        let r = plan_rules(&p, "/plan");
        assert_eq!(r.len(), 1, "{r:?}");
        assert_eq!(r[0].pointer, "/plan/steps/1/depends_on/0");
        assert!(r[0].message.contains("a -> c -> b -> a"), "{}", r[0].message);
    }

    #[test]
    fn placeholders_are_split_or_refused() {
        let names = |s: &str| match pieces(s) {
            (p, None) => {
                p.into_iter().filter_map(|x| if let Piece::Param(n) = x { Some(n.to_string()) } else { None }).collect()
            }
            (_, Some(e)) => vec![format!("error: {e}")],
        };
        assert_eq!(names("deploy {{service}} to {{ env }}"), ["service", "env"]);
        assert_eq!(names("no placeholders { here }"), Vec::<String>::new());
        assert!(names("{{bad-name}}")[0].starts_with("error"));
        assert!(names("{{open")[0].starts_with("error"));
    }
}
