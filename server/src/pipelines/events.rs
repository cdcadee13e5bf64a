//! The events a pipeline's trigger can name, and their fields: one table ([`EVENT_TYPES`]),
//! which the config check, preview_trigger and the docs read. A bus event (ids only: events
//! are hints) becomes a [`TriggerEvent`] with its fields read from the store.

use serde_json::{json, Map, Value};

use crate::bus::Event;
use crate::store::{Result, Store};

/// One event type: its name, what it is, and its fields (name, what it holds).
pub struct EventSpec {
    pub name: &'static str,
    pub doc: &'static str,
    pub fields: &'static [(&'static str, &'static str)],
}

const TICKET_FIELDS: &[(&str, &str)] = &[
    ("workspace_id", "the ticket's workspace"),
    ("ticket_id", "its id (tk-…)"),
    ("key", "its key (T-12)"),
    ("title", "its title"),
    ("status", "its status now (open, in_progress, blocked, in_review, done, failed, cancelled)"),
    ("previous_status", "its status before the change (null when it was created)"),
    ("priority", "none, low, medium, high or urgent"),
    ("labels", "its labels (a list: a filter matches when one label does)"),
    ("assignee", "the name of the agent it is assigned to (null: nobody)"),
    ("team", "its team (null: none)"),
    ("creator", "who created it (a principal's or an agent's name)"),
    ("parent_id", "the ticket it is a sub-issue of (null: none)"),
];

/// Every event type a trigger may name.
pub const EVENT_TYPES: &[EventSpec] = &[
    EventSpec {
        name: "message.posted",
        doc: "a message was posted in a space (send_message, a ticket's comment, an answer)",
        fields: &[
            ("workspace_id", "the space's workspace"),
            ("space_id", "the space (sp-…)"),
            ("space_kind", "free, dm, ticket or review"),
            ("space_name", "the space's name (a ticket's space: 'T-12: title')"),
            ("message_id", "the message (msg-…)"),
            ("seq", "its number in the space (an integer)"),
            ("reply_to", "the message it answers (null: none)"),
            ("sender", "the sender's name"),
            ("sender_kind", "agent, operator or principal"),
            ("text", "the message's text"),
        ],
    },
    EventSpec {
        name: "run.ended",
        doc: "an agent's run ended (done, failed, timed_out, cancelled, abandoned)",
        fields: &[
            ("workspace_id", "the run's workspace"),
            ("run_id", "the run (run-…)"),
            ("agent", "the agent's name"),
            ("agent_id", "the agent's id"),
            ("status", "done, failed, timed_out, cancelled or abandoned"),
            ("reason", "why it was started: ask, consult, message, delegate, pipeline, …"),
            ("ticket_id", "the ticket it was dispatched for (null: none)"),
            ("exit_code", "its process's exit status (null: killed or never started)"),
            ("error", "why it failed (null: it did not)"),
        ],
    },
    EventSpec {
        name: "ticket.created",
        doc: "a ticket was created (create_ticket, a delegation)",
        fields: TICKET_FIELDS,
    },
    EventSpec {
        name: "ticket.status_changed",
        doc: "a ticket's status changed (update_ticket, close_ticket, fail_ticket)",
        fields: TICKET_FIELDS,
    },
    EventSpec {
        name: "ticket.closed",
        doc: "a ticket reached a final status (done, failed or cancelled) from an open one",
        fields: TICKET_FIELDS,
    },
];

/// The spec of event type `name`.
pub fn spec(name: &str) -> Option<&'static EventSpec> {
    EVENT_TYPES.iter().find(|s| s.name == name)
}

/// The event type names, for messages.
pub fn names() -> String {
    EVENT_TYPES.iter().map(|s| s.name).collect::<Vec<_>>().join(", ")
}

/// An event as triggers see it.
#[derive(Clone, Debug, PartialEq)]
pub struct TriggerEvent {
    /// Its type's name (an [`EVENT_TYPES`] name).
    pub kind: &'static str,
    pub workspace_id: String,
    /// What makes it this event and no other (a run starts once per trigger and key).
    pub key: String,
    /// Its fields (every field of its type; null when it has no value).
    pub fields: Map<String, Value>,
}

impl TriggerEvent {
    /// The event as JSON: `type` and its fields.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("type".into(), Value::from(self.kind));
        m.extend(self.fields.clone());
        Value::Object(m)
    }

    /// The ticket it is about, when it is a ticket's (or a run dispatched for one).
    pub fn ticket_id(&self) -> Option<&str> {
        self.fields.get("ticket_id").and_then(Value::as_str)
    }
}

/// `fields` with every field of `spec` present (null when missing).
fn complete(spec: &EventSpec, mut fields: Map<String, Value>) -> Map<String, Value> {
    for (f, _) in spec.fields {
        fields.entry(f.to_string()).or_insert(Value::Null);
    }
    fields
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// The trigger events a bus event is (none, one, or two: a close is a status change too),
/// with their fields read from the store. A run's queued and running steps are none.
pub async fn from_bus(store: &Store, e: &Event) -> Result<Vec<TriggerEvent>> {
    match e {
        Event::Message { workspace_id, space_id, message_id, .. } => {
            let Some(m) = store.spaces().message(message_id).await? else { return Ok(vec![]) };
            let space = store.spaces().get(space_id).await?;
            let fields = obj(json!({
                "workspace_id": workspace_id,
                "space_id": space_id,
                "space_kind": space.as_ref().map(|s| s.kind.as_str()),
                "space_name": space.as_ref().map(|s| s.name.clone()),
                "message_id": m.id,
                "seq": m.seq,
                "reply_to": m.reply_to,
                "sender": m.sender.name,
                "sender_kind": m.sender.kind,
                "text": m.text,
            }));
            let spec = spec("message.posted").expect("in the table");
            Ok(vec![TriggerEvent {
                kind: spec.name,
                workspace_id: workspace_id.clone(),
                key: format!("message:{message_id}"),
                fields: complete(spec, fields),
            }])
        }
        Event::Run { workspace_id, run_id, status, .. } => {
            if matches!(status.as_str(), "queued" | "running") {
                return Ok(vec![]);
            }
            let Some(r) = store.agents().run(run_id).await? else { return Ok(vec![]) };
            let agent = store.agents().get(&r.agent_id).await?;
            let fields = obj(json!({
                "workspace_id": workspace_id,
                "run_id": r.id,
                "agent": agent.map(|a| a.name),
                "agent_id": r.agent_id,
                "status": r.status.as_str(),
                "reason": r.reason,
                "ticket_id": r.ticket_id,
                "exit_code": r.exit_code,
                "error": r.error,
            }));
            let spec = spec("run.ended").expect("in the table");
            Ok(vec![TriggerEvent {
                kind: spec.name,
                workspace_id: workspace_id.clone(),
                key: format!("run:{run_id}"),
                fields: complete(spec, fields),
            }])
        }
        // Not a trigger (the operator console listens to it).
        Event::Approval { .. } => Ok(vec![]),
        // Between replicas only.
        Event::RigClose { .. } => Ok(vec![]),
        Event::Ticket { workspace_id, ticket_id, version, previous_status, .. } => {
            let Some(t) = store.tickets().get(ticket_id).await? else { return Ok(vec![]) };
            let assignee = match &t.assignee_id {
                Some(a) => store.agents().get(a).await?.map(|a| a.name),
                None => None,
            };
            let fields = obj(json!({
                "workspace_id": workspace_id,
                "ticket_id": t.id,
                "key": t.key,
                "title": t.title,
                "status": t.status.as_str(),
                "previous_status": previous_status,
                "priority": t.priority.as_str(),
                "labels": t.labels,
                "assignee": assignee,
                "team": t.team,
                "creator": t.creator,
                "parent_id": t.parent_id,
            }));
            let mut kinds = Vec::new();
            match previous_status.as_deref() {
                None => kinds.push("ticket.created"),
                Some(p) if p != t.status.as_str() => {
                    kinds.push("ticket.status_changed");
                    let was_final = matches!(p, "done" | "failed" | "cancelled");
                    if t.status.is_final() && !was_final {
                        kinds.push("ticket.closed");
                    }
                }
                Some(_) => {}
            }
            Ok(kinds
                .into_iter()
                .map(|k| {
                    let spec = spec(k).expect("in the table");
                    TriggerEvent {
                        kind: spec.name,
                        workspace_id: workspace_id.clone(),
                        key: format!("{k}:{ticket_id}:{version}"),
                        fields: complete(spec, fields.clone()),
                    }
                })
                .collect())
        }
    }
}

/// A hypothetical event (preview_trigger's `event`): its type and fields checked against
/// the table, each error naming its pointer under `pointer`.
pub fn hypothetical(
    workspace: &str,
    event: &Map<String, Value>,
    pointer: &str,
) -> std::result::Result<TriggerEvent, (String, String)> {
    let kind = match event.get("type") {
        Some(Value::String(s)) => s.as_str(),
        Some(other) => {
            return Err((
                format!("{pointer}/type"),
                format!("{pointer}/type: expected an event type (a string: {}), got {other}", names()),
            ))
        }
        None => {
            return Err((
                format!("{pointer}/type"),
                format!("{pointer}/type: required: the event's type ({})", names()),
            ))
        }
    };
    let Some(spec) = spec(kind) else {
        return Err((
            format!("{pointer}/type"),
            format!("{pointer}/type: unknown event type '{kind}'; the types: {}", names()),
        ));
    };
    let mut fields = Map::new();
    for (k, v) in event {
        if k == "type" {
            continue;
        }
        if !spec.fields.iter().any(|(f, _)| f == k) {
            let p = format!("{pointer}/{}", k.replace('~', "~0").replace('/', "~1"));
            let known: Vec<&str> = spec.fields.iter().map(|(f, _)| *f).collect();
            return Err((p.clone(), format!("{p}: {kind} has no field '{k}'; its fields: {}", known.join(", "))));
        }
        fields.insert(k.clone(), v.clone());
    }
    // The call's workspace is the event's: a preview never reads another's pipelines' view.
    fields.insert("workspace_id".to_string(), Value::from(workspace));
    Ok(TriggerEvent {
        kind: spec.name,
        workspace_id: workspace.to_string(),
        key: "preview".into(),
        fields: complete(spec, fields),
    })
}

#[cfg(test)]
mod tests {
    /// docs/pipelines.md lists every event type with every field as the table says.
    #[test]
    fn the_docs_list_every_type_and_field() {
        let doc = include_str!("../../../docs/pipelines.md");
        for s in super::EVENT_TYPES {
            assert!(doc.contains(&format!("### `{}`", s.name)), "docs/pipelines.md lacks {}", s.name);
            let section = doc.split(&format!("### `{}`", s.name)).nth(1).unwrap();
            let section = section.split("### ").next().unwrap();
            for (f, what) in s.fields {
                let row = format!("| `{f}` | {what} |");
                assert!(section.contains(&row), "docs/pipelines.md, {}: no row {row}", s.name);
            }
        }
    }
}
