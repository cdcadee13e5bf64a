//! The product's MCP prompts, `goal` and `loop` (clients show them as slash commands:
//! `/goal`, `/loop`): each starts a persistent goal for the conversation — a goal of level
//! task in the store, kept under the conversation's principal and lasting name — and answers
//! the instructions that carry it across turns. complete_goal marks it met with evidence.
//! A conversation has at most one active goal.

use rmcp::model::{GetPromptResult, JsonObject, Prompt, PromptArgument, PromptMessage, Role};
use rmcp::ErrorData;
use serde_json::{json, Value};

use crate::mcp::dispatch::Conversation;
use crate::mcp::principal::Principal;
use crate::mcp::tools::conversation::goal_key;
use crate::services::Services;
use crate::store::{GoalLevel, NewGoal, StoreError, DEFAULT_WORKSPACE};

/// The prompts' names.
pub const NAMES: [&str; 2] = ["goal", "loop"];

pub fn prompts() -> Vec<Prompt> {
    let args = |what: &str, target: &str| {
        vec![
            PromptArgument::new("objective").with_description(what).with_required(true),
            PromptArgument::new("target").with_description(target).with_required(false),
            PromptArgument::new("workspace_id")
                .with_description("The workspace the goal is kept in (default: the session's, else default)")
                .with_required(false),
        ]
    };
    vec![
        Prompt::new(
            "goal",
            Some("Start a persistent goal for this conversation: worked toward across turns until complete_goal declares it met, with evidence"),
            Some(args("What is to be reached", "What shows it is met (the evidence complete_goal will give)")),
        )
        .with_title("Goal"),
        Prompt::new(
            "loop",
            Some("Work in a loop until a goal is met: each iteration does the next step and checks it against the target; complete_goal ends the loop, with evidence"),
            Some(args("What each iteration works toward", "When the loop stops (checked after every iteration)")),
        )
        .with_title("Loop"),
    ]
}

/// `prompts/get` of `goal` or `loop`: starts the conversation's goal and answers its
/// instructions. Bad arguments are -32602 naming the argument; a conversation with an active
/// goal already is -32600 naming it.
pub async fn get(
    services: &Services,
    principal: &Principal,
    conversation: &Conversation,
    name: &str,
    arguments: Option<&JsonObject>,
) -> Result<GetPromptResult, ErrorData> {
    let empty = JsonObject::new();
    let args = arguments.unwrap_or(&empty);
    let text = |key: &str, required: bool, max: usize| -> Result<Option<String>, ErrorData> {
        match args.get(key) {
            Some(Value::String(s)) if !s.trim().is_empty() && s.len() <= max => Ok(Some(s.trim().to_string())),
            Some(Value::String(_)) => Err(ErrorData::invalid_params(
                format!("/{key}: 1 to {max} bytes of text"),
                Some(json!({ "pointer": format!("/{key}") })),
            )),
            Some(_) => Err(ErrorData::invalid_params(
                format!("/{key}: a string (prompt arguments are strings)"),
                Some(json!({ "pointer": format!("/{key}") })),
            )),
            None if required => Err(ErrorData::invalid_params(
                format!("/{key}: missing; the {name} prompt needs it"),
                Some(json!({ "pointer": format!("/{key}") })),
            )),
            None => Ok(None),
        }
    };
    if let Some(k) = args.keys().find(|k| !["objective", "target", "workspace_id"].contains(&k.as_str())) {
        return Err(ErrorData::invalid_params(
            format!("/{k}: the {name} prompt takes objective, target and workspace_id"),
            Some(json!({ "pointer": format!("/{k}") })),
        ));
    }
    let objective = text("objective", true, 2000)?.expect("required");
    let target = text("target", false, 2000)?;
    let workspace = match text("workspace_id", false, 100)? {
        Some(w) => w,
        None => match principal.workspaces.as_deref() {
            Some([only]) => only.clone(),
            _ => DEFAULT_WORKSPACE.to_string(),
        },
    };
    let unknown = || {
        ErrorData::invalid_params(
            format!("/workspace_id: no workspace '{workspace}' this principal sees; list_workspaces lists them"),
            Some(json!({ "pointer": "/workspace_id" })),
        )
    };
    if !principal.sees(&workspace) {
        return Err(unknown());
    }
    if services.store.workspaces().get(&workspace).await.map_err(internal)?.is_none() {
        return Err(unknown());
    }
    let key = goal_key(principal, conversation).map_err(|m| ErrorData::invalid_request(m, None))?;
    let by = principal.agent.as_ref().map_or_else(|| principal.name.to_string(), |a| a.name.clone());
    let g = NewGoal {
        level: GoalLevel::Task,
        parent_id: None,
        owner: Some(by.clone()),
        title: objective.clone(),
        target: target.clone(),
        created_by: by,
        conversation: Some((key, name.to_string())),
    };
    let goal = services.store.goals().start(&workspace, g).await.map_err(|e| match e {
        StoreError::Conflict(m) => ErrorData::invalid_request(m, None),
        e => internal(e),
    })?;
    let until = target.as_deref().map(|t| format!(" It is met when: {t}.")).unwrap_or_default();
    let finish = format!(
        "When it is met — and not before — call complete_goal (workspace_id {workspace}) with your evidence: what shows it \
         is met (tests passing, links, output). Until then, report how far along it is with update_goal_progress (goal_id {id}, 0 to 100).",
        id = goal.id
    );
    let body = match name {
        "loop" => format!(
            "Work in a loop toward this goal: {objective}.{until}\n\nIt is recorded as this conversation's goal {id} in workspace \
             {workspace}. Each iteration: do the next step, check the result against the goal, and go on to the next \
             iteration without waiting to be asked. Stop only when it is met, or when you are blocked in a way you cannot \
             resolve (then say what blocks you). {finish}",
            id = goal.id
        ),
        _ => format!(
            "This conversation's goal: {objective}.{until}\n\nIt is recorded as goal {id} in workspace {workspace}, and it \
             persists across turns: keep working toward it. {finish}",
            id = goal.id
        ),
    };
    let mut r = GetPromptResult::new(vec![PromptMessage::new_text(Role::User, body)]);
    r.description = Some(format!("{name}: {objective} (goal {})", goal.id));
    Ok(r)
}

fn internal(e: StoreError) -> ErrorData {
    ErrorData::internal_error(e.to_string(), None)
}
