//! run_playbook: a playbook filled with checked values — a plan put on the approvals board,
//! waiting for the operator.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::{check_value, fill, plan_rules, problems_error, ParamSpec, PlanDocument, PlanOut, Problem};
use crate::mcp::policy::Mode;
use crate::mcp::tool::{schema_of, Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::mcp::tools::governance::actor;
use crate::mcp::tools::tickets::caller;
use crate::store::{BoardApproval, BoardKind};

pub const DECL: Decl = Decl {
    name: "run_playbook",
    title: "Run a playbook",
    description: "Instantiate a playbook (name; its latest version unless `version`) with parameter values (`params`: name -> value of the declared type; defaults fill what is left out). Missing, unknown and wrong-typed values are all reported at once, each named by its JSON pointer (/params/count). The filled plan is checked as submit_plan checks a plan, stored, and put on the approvals board (kind plan) for the operator: the result names the board approval (approval.id).",
    set: ToolSet::Plans,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Orchestrate]),
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunPlaybookArgs {
    /// The playbook's name (create_playbook's).
    #[schemars(length(min = 1, max = 100))]
    pub name: String,
    /// Which version (default: the latest).
    #[schemars(range(min = 1))]
    pub version: Option<u32>,
    /// The parameters' values: name -> a value of the declared type.
    #[serde(default)]
    pub params: Map<String, Value>,
}

#[derive(Serialize, JsonSchema)]
pub struct RunPlaybookOut {
    #[serde(flatten)]
    pub plan: PlanOut,
    /// The board approval the plan waits on (kind plan, pending until the operator decides).
    pub approval: BoardApproval,
    /// Every parameter's value, defaults included.
    pub params: BTreeMap<String, Value>,
}

fn plan_validator() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| {
        jsonschema::validator_for(&Value::Object(schema_of::<PlanDocument>()))
            .expect("the PlanDocument schema compiles")
    })
}

pub async fn run_playbook(ctx: Ctx<String>, a: RunPlaybookArgs) -> Result<RunPlaybookOut, ToolError> {
    let plans = ctx.services.store.plans();
    let version = a.version.map(i64::from);
    let Some(pb) = plans.playbook(&ctx.workspace, &a.name, version).await? else {
        let versions = plans.playbook_versions(&ctx.workspace, &a.name).await?;
        if let (Some(v), false) = (version, versions.is_empty()) {
            return Err(ToolError::not_found(
                "/version",
                format!("/version: playbook '{}' has no version {v} (its versions: {})", a.name, list(&versions)),
            ));
        }
        let names = plans.playbook_names(&ctx.workspace).await?;
        return Err(ToolError::not_found(
            "/name",
            format!(
                "/name: no playbook '{}' in workspace '{}' (its playbooks: {}); create_playbook saves one",
                a.name,
                ctx.workspace,
                if names.is_empty() { "none".to_string() } else { names.join(", ") }
            ),
        ));
    };
    let specs: BTreeMap<String, ParamSpec> = serde_json::from_value(pb.params.clone()).map_err(|e| {
        ToolError::internal(format!("playbook {} version {}: its stored params: {e}", pb.name, pb.version))
    })?;
    let mut problems = Vec::new();
    let mut values = BTreeMap::new();
    for (name, spec) in &specs {
        let at = format!("/params/{}", escape(name));
        match (a.params.get(name), &spec.default) {
            (Some(v), _) => match check_value(spec, v) {
                Some(why) => problems.push(Problem::new(at, why)),
                None => {
                    values.insert(name.clone(), v.clone());
                }
            },
            (None, Some(d)) => {
                values.insert(name.clone(), d.clone());
            }
            (None, None) => problems.push(Problem::new(
                at,
                format!(
                    "missing: playbook '{}' version {} requires the {} parameter '{name}'",
                    pb.name,
                    pb.version,
                    type_name(spec)
                ),
            )),
        }
    }
    for name in a.params.keys() {
        if !specs.contains_key(name) {
            problems.push(Problem::new(
                format!("/params/{}", escape(name)),
                format!(
                    "playbook '{}' version {} has no parameter '{name}' (its parameters: {})",
                    pb.name,
                    pb.version,
                    if specs.is_empty() {
                        "none".to_string()
                    } else {
                        specs.keys().cloned().collect::<Vec<_>>().join(", ")
                    }
                ),
            ));
        }
    }
    if !problems.is_empty() {
        return Err(problems_error(&problems));
    }
    // The filled plan: its schema (a value may make a string too long) and its rules.
    let filled = fill(&pb.plan, &values);
    let mut problems: Vec<Problem> = plan_validator()
        .iter_errors(&filled)
        .map(|e| Problem::new(format!("/plan{}", e.instance_path()), e.to_string()))
        .collect();
    let document: Option<PlanDocument> = if problems.is_empty() {
        match serde_json::from_value(filled.clone()) {
            Ok(d) => Some(d),
            Err(e) => {
                problems.push(Problem::new("/plan", e.to_string()));
                None
            }
        }
    } else {
        None
    };
    if let Some(d) = &document {
        problems.extend(plan_rules(d, "/plan"));
    }
    let Some(document) = document.filter(|_| problems.is_empty()) else {
        let e = problems_error(&problems);
        return Err(ToolError::invalid(
            "/params",
            format!(
                "/params: playbook '{}' version {} filled with these values is not a valid plan: {}",
                pb.name, pb.version, e.message
            ),
        )
        .with_data(json!({ "errors": problems })));
    };
    let by = caller(&ctx).0;
    let (plan, version) = plans.create_from_playbook(&ctx.workspace, &pb.id, &document.title, &filled, &by).await?;
    let payload = json!({
        "plan_id": plan.id,
        "version": version.version,
        "playbook": { "id": pb.id, "name": pb.name, "version": pb.version },
        "params": values,
        "plan": filled,
    });
    let title = format!("Plan from playbook {} v{}: {}", pb.name, pb.version, document.title);
    let title: String = title.chars().take(500).collect();
    let approval = ctx
        .services
        .store
        .board()
        .create(&ctx.workspace, BoardKind::Plan, &title, &payload, &actor(&ctx), Some(&ctx.conversation.id))
        .await?;
    let plan = plans.set_approval(&plan.id, &approval.id).await?;
    Ok(RunPlaybookOut { plan: PlanOut::new(plan, version), approval, params: values })
}

fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

fn list(versions: &[i64]) -> String {
    versions.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
}

fn type_name(p: &ParamSpec) -> String {
    match (&p.kind, &p.values) {
        (super::ParamType::Enum, Some(v)) => format!("enum ({})", v.join(", ")),
        (k, _) => serde_json::to_value(k).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default(),
    }
}
