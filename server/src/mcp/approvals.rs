//! The confirmation port: the one way a call that needs an approval gets one. It is
//! asked with an [`ApprovalPayload`] (tool, arguments, workspace, conversation, why)
//! before the tool runs:
//!
//! 1. an approval of this exact call decided earlier (by an operator) is used once;
//! 2. a client that declared `elicitation` on a protocol with server-to-client requests
//!    (before 2026-07-28) is asked with `elicitation/create` (accept + approve = yes;
//!    decline, cancel, no answer in time = no);
//! 3. otherwise, with an operator queue (`--approval-queue`, `--operator-token`), a
//!    pending approval is recorded; the call answers with its id, and the same call made
//!    again after the operator approves it (`cc-server approvals approve ID`,
//!    `POST /approvals/ID/approve`) runs;
//! 4. with no approver connected the call is denied, saying so.
//!
//! Every decision is recorded in the store (`cc-server approvals list --all`).

use std::time::Duration;

use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema};
use serde::Serialize;
use serde_json::{json, Map, Value};

use super::tool::{ErrorKind, ToolError};
use crate::store::{now, Approval, ApprovalStatus, Store, StoreError};

/// How approvals are decided on this server.
#[derive(Clone, Debug)]
pub struct ApprovalConfig {
    /// An operator decides pending approvals (HTTP `/approvals`, `cc-server approvals`).
    pub queue: bool,
    /// How long a client is given to answer an elicitation.
    pub timeout: Duration,
    /// Most pending approvals one principal may have at once.
    pub max_pending: usize,
}

impl Default for ApprovalConfig {
    fn default() -> Self {
        ApprovalConfig { queue: false, timeout: Duration::from_secs(120), max_pending: 100 }
    }
}

/// What is asked: which call, where, for whom, and why it needs an approval.
#[derive(Clone, Debug, Serialize)]
pub struct ApprovalPayload {
    pub tool: String,
    pub arguments: Value,
    pub workspace: Option<String>,
    pub conversation: String,
    pub principal: String,
    pub why: String,
}

/// Who can be asked for this call.
pub struct Approvers<'a> {
    /// The client, when it can answer `elicitation/create` now.
    pub elicit: Option<&'a rmcp::Peer<rmcp::RoleServer>>,
}

/// Arguments as canonical JSON (object keys sorted, recursively): the same call made
/// again matches its approval whatever order the client wrote the keys in.
pub fn canonical(v: &Value) -> String {
    fn sort(v: &Value) -> Value {
        match v {
            Value::Object(o) => {
                let mut keys: Vec<&String> = o.keys().collect();
                keys.sort();
                let mut m = Map::new();
                for k in keys {
                    m.insert(k.clone(), sort(&o[k]));
                }
                Value::Object(m)
            }
            Value::Array(a) => Value::Array(a.iter().map(sort).collect()),
            x => x.clone(),
        }
    }
    sort(v).to_string()
}

fn denied(message: String, data: Value) -> ToolError {
    ToolError::new(ErrorKind::ApprovalDenied, message).with_data(data)
}

/// The schema of the confirmation form: one boolean.
pub fn form_schema() -> ElicitationSchema {
    serde_json::from_value(json!({
        "type": "object",
        "properties": {
            "approve": {
                "type": "boolean",
                "title": "Approve",
                "description": "Run this call now",
                "default": false
            }
        },
        "required": ["approve"]
    }))
    .expect("the approval form is a valid elicitation schema")
}

fn form_message(p: &ApprovalPayload) -> String {
    let ws = p.workspace.as_deref().map(|w| format!(" in workspace '{w}'")).unwrap_or_default();
    format!(
        "Approve {}{ws}? {}. Arguments: {}. (conversation {}, principal {})",
        p.tool, p.why, p.arguments, p.conversation, p.principal
    )
}

/// Asks for an approval of `p`; `Ok(())` when the call may run now.
pub async fn confirm(
    store: &Store,
    cfg: &ApprovalConfig,
    p: ApprovalPayload,
    who: Approvers<'_>,
) -> Result<(), ToolError> {
    let args = canonical(&p.arguments);
    let store_err = |e: StoreError| ToolError::internal(format!("approval store: {e}"));
    let approvals = store.approvals();
    // 1. A decision recorded for this exact call.
    if let Some(a) =
        approvals.open_for(&p.principal, &p.tool, p.workspace.as_deref(), &args).await.map_err(store_err)?
    {
        match a.status {
            ApprovalStatus::Approved => {
                if approvals.consume(&a.id).await.map_err(store_err)? {
                    return Ok(());
                }
            }
            ApprovalStatus::Rejected => {
                approvals.consume(&a.id).await.map_err(store_err)?;
                let by = a.decided_by.as_deref().unwrap_or("the operator");
                let reason = a.reason.as_deref().map(|r| format!(": {r}")).unwrap_or_default();
                return Err(denied(
                    format!("approval {} of {} was rejected by {by}{reason}; the call did not run", a.id, p.tool),
                    json!({"approval_id": a.id, "status": "rejected", "by": by, "reason": a.reason}),
                ));
            }
            ApprovalStatus::Pending => return Err(pending(&a, &p.tool)),
        }
    }
    // 2. The client, by elicitation.
    if let Some(peer) = who.elicit {
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: form_message(&p),
            requested_schema: form_schema(),
        };
        let answer = peer.create_elicitation_with_timeout(params, Some(cfg.timeout)).await;
        let (approved, status, message) = match answer {
            Ok(r) => match r.action {
                ElicitationAction::Accept => {
                    let yes = r.content.as_ref().and_then(|c| c.get("approve")).and_then(Value::as_bool) == Some(true);
                    if yes {
                        (true, "approved", String::new())
                    } else {
                        (false, "declined", format!("the user did not approve {} (approve was not true)", p.tool))
                    }
                }
                ElicitationAction::Decline => (false, "declined", format!("the user declined {}", p.tool)),
                ElicitationAction::Cancel => {
                    (false, "cancelled", format!("the user cancelled the approval of {}", p.tool))
                }
                other => (false, "declined", format!("the client answered {other:?} to the approval of {}", p.tool)),
            },
            Err(rmcp::service::ServiceError::Timeout { timeout }) => (
                false,
                "timeout",
                format!("no answer to the approval of {} within {} s", p.tool, timeout.as_secs_f64()),
            ),
            Err(e) => (false, "failed", format!("asking the client to approve {} failed: {e}", p.tool)),
        };
        record(store, &p, &args, approved, "client (elicitation)", status).await.map_err(store_err)?;
        return if approved {
            Ok(())
        } else {
            Err(denied(format!("{message}; the call did not run"), json!({"status": status, "by": "client"})))
        };
    }
    // 3. The operator's queue.
    if cfg.queue {
        if approvals.pending_of(&p.principal).await.map_err(store_err)? >= cfg.max_pending {
            return Err(denied(
                format!(
                    "{} pending approvals of '{}' wait for the operator already (the limit); the call did not run",
                    cfg.max_pending, p.principal
                ),
                json!({"status": "too_many_pending"}),
            ));
        }
        let a = Approval {
            id: approval_id(),
            created_at: now(),
            tool: p.tool.clone(),
            arguments: serde_json::from_str(&args).unwrap_or(Value::Null),
            workspace: p.workspace.clone(),
            conversation: p.conversation.clone(),
            principal: p.principal.to_string(),
            why: p.why.clone(),
            status: ApprovalStatus::Pending,
            decided_at: None,
            decided_by: None,
            reason: None,
            consumed_at: None,
        };
        approvals.insert(&a).await.map_err(store_err)?;
        return Err(pending(&a, &p.tool));
    }
    // 4. Nobody to ask.
    Err(denied(
        format!(
            "{} needs an approval ({}) and no approver is connected: the client did not declare elicitation (or \
             its protocol version has no server-to-client requests) and the server runs without an approval queue \
             (--approval-queue or --operator-token); the call did not run",
            p.tool, p.why
        ),
        json!({"status": "no_approver"}),
    ))
}

/// Decides pending approval `id` (the operator: `/approvals`, the console) and tells the
/// server's listeners (the console's live pages); the store's errors as
/// [`Approvals::decide`](crate::store::Approvals::decide) gives them.
pub async fn decide(
    services: &crate::services::Services,
    id: &str,
    approve: bool,
    by: &str,
    reason: Option<&str>,
) -> Result<Approval, StoreError> {
    let a = services.store.approvals().decide(id, approve, by, reason).await?;
    let event = crate::bus::Event::Approval {
        workspace_id: a.workspace.clone(),
        approval_id: a.id.clone(),
        board: false,
        status: a.status.as_str().into(),
    };
    services.bus.publish(&services.store, event).await;
    Ok(a)
}

/// A new approval's id: `ap-` and a UUIDv7 (time-ordered, so ids sort by creation).
fn approval_id() -> String {
    format!("ap-{}", uuid::Uuid::now_v7().simple())
}

async fn record(
    store: &Store,
    p: &ApprovalPayload,
    args: &str,
    approved: bool,
    by: &str,
    how: &str,
) -> Result<(), StoreError> {
    let t = now();
    store
        .approvals()
        .insert(&Approval {
            id: approval_id(),
            created_at: t,
            tool: p.tool.clone(),
            arguments: serde_json::from_str(args).unwrap_or(Value::Null),
            workspace: p.workspace.clone(),
            conversation: p.conversation.clone(),
            principal: p.principal.clone(),
            why: p.why.clone(),
            status: if approved { ApprovalStatus::Approved } else { ApprovalStatus::Rejected },
            decided_at: Some(t),
            decided_by: Some(by.into()),
            reason: Some(how.into()),
            consumed_at: Some(t),
        })
        .await
}

fn pending(a: &Approval, tool: &str) -> ToolError {
    let resume = format!(
        "an operator decides it with `cc-server approvals approve {id}` (or reject), or POST /approvals/{id}/approve; \
         then call {tool} again with the same arguments: the approval is used once",
        id = a.id
    );
    ToolError::new(ErrorKind::ApprovalPending, format!("{tool} waits for an operator's approval {}; {resume}", a.id))
        .with_data(json!({"approval_id": a.id, "status": "pending", "why": a.why, "resume": resume}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_sorts_keys_at_every_depth() {
        let a: Value = serde_json::from_str(r#"{"b":1,"a":{"y":[{"q":1,"p":2}],"x":null}}"#).unwrap();
        assert_eq!(canonical(&a), r#"{"a":{"x":null,"y":[{"p":2,"q":1}]},"b":1}"#);
    }

    #[test]
    fn form_schema_round_trips() {
        let v = serde_json::to_value(form_schema()).unwrap();
        assert_eq!(v["properties"]["approve"]["type"], "boolean");
    }
}
