//! Policy: conversation modes, the mode allow-lists, the action-class guardrails and the
//! callability every discovery tool reports. Each is one table here; the dispatcher
//! enforces them on every `tools/call`, and `tools/list`, `list_my_tools` and
//! `search_tool_bm25` answer from the same [`gate`].
//!
//! The tables hold only registered tools (a test checks it). The spec's full lists
//! (spec/registry.md, "Mode-based tool gating") are kept in [`SPEC_NOT_YET_REGISTERED`]:
//! when one of those tools is registered, a test fails until it moves into the live table.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::registry::{ActionClass, ToolDef};

/// A conversation's mode: what the agent is doing, hence which tools it may call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Every served tool; no allow-list.
    Chat,
    /// Planning: read, remember, publish the plan; no worktree writes.
    Plan,
    /// Reviewing: review participation, communications, read-only context, ticket verbs.
    Review,
    /// Orchestrating: research and read tools plus proposing an orchestration.
    Orchestrate,
}

impl Mode {
    pub const ALL: [Mode; 4] = [Mode::Chat, Mode::Plan, Mode::Review, Mode::Orchestrate];

    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Chat => "chat",
            Mode::Plan => "plan",
            Mode::Review => "review",
            Mode::Orchestrate => "orchestrate",
        }
    }

    pub fn parse(s: &str) -> Result<Mode, String> {
        Mode::ALL
            .into_iter()
            .find(|m| m.as_str() == s.trim())
            .ok_or_else(|| format!("unknown mode '{s}'; modes: chat, plan, review, orchestrate"))
    }

    fn index(self) -> usize {
        self as usize
    }

    /// Whether a mode restricts tools (every mode but chat): leaving one needs an approval.
    pub fn restricted(self) -> bool {
        self != Mode::Chat
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Allowed in every mode, whatever the allow-list (spec: "Allowed in every mode").
/// `code_read` is the code graph's read (the same text as the `cc://` resource);
/// `set_mode` is how a conversation changes mode, so every mode must reach it.
pub const ALWAYS_ALLOWED: &[(&str, &[&str])] = &[
    ("memory and artifacts", &[]),
    ("code graph", &["search_code", "code_symbol", "code_callers", "code_callees", "code_impact", "code_read"]),
    ("run mechanics", &["search_tool_bm25", "list_my_tools", "set_mode"]),
];

/// The curated allow-list of each restricted mode (chat has none: every tool). The
/// workspace reads are "read-only context fetches" every mode needs.
pub const MODE_ALLOWLISTS: &[(Mode, &[&str])] = &[
    (Mode::Plan, &["list_workspaces", "list_repos", "exit_plan_mode"]),
    (Mode::Review, &["list_workspaces", "list_repos"]),
    (Mode::Orchestrate, &["list_workspaces", "list_repos"]),
];

/// The spec's names for the tables above whose tools are not registered yet. A test
/// fails when one of them is registered: move it into [`ALWAYS_ALLOWED`] or
/// [`MODE_ALLOWLISTS`] then. (Plan's ticket verbs apply to the dispatched ticket only.)
pub const SPEC_NOT_YET_REGISTERED: &[(&str, &[&str])] = &[
    (
        "always: memory and artifacts",
        &[
            "search_memory",
            "propose_fact",
            "propose_policy",
            "supersede_fact",
            "supersede_policy",
            "record_observation",
            "update_my_notes",
            "get_my_notes",
            "list_memory_domains",
            "list_policies",
            "publish_artifact",
            "revise_artifact",
            "list_artifacts",
            "get_artifact",
        ],
    ),
    ("always: run mechanics", &["todo_write", "todo_read"]),
    (
        "plan",
        &[
            "submit_plan",
            "get_ticket",
            "list_tickets",
            "comment_on_ticket",
            "close_ticket",
            "fail_ticket",
            "submit_output",
        ],
    ),
    (
        "review",
        &[
            // review participation
            "add_review_node",
            "confirm_review_node",
            "resolve_review_node",
            "dismiss_review_node",
            "request_peer_review",
            "submit_reviewer_verdict",
            "set_cohort_summary",
            "add_review_diagram",
            // communications
            "list_spaces",
            "get_messages",
            "send_message",
            "get_space_notes",
            "update_space_notes",
            "send_to_agent",
            "ask_agent",
            // read-only context
            "list_agents",
            // every ticket verb
            "create_ticket",
            "get_ticket",
            "list_tickets",
            "update_ticket",
            "assign_ticket",
            "reassign_ticket",
            "add_ticket_collaborator",
            "comment_on_ticket",
            "close_ticket",
            "fail_ticket",
            "delegate_ticket",
            "ticket_pr_link",
            "ticket_relation",
            "list_ticket_relations",
        ],
    ),
    (
        "orchestrate",
        &[
            "propose_orchestration",
            "create_playbook",
            "run_playbook",
            // research and read tools
            "list_agents",
            "list_skills",
            "get_ticket",
            "list_tickets",
            "list_goals",
            "get_org_chart",
            "list_spaces",
            "get_messages",
        ],
    ),
    // spec "Approval-gated tools": they join APPROVALS (registry.rs) when registered.
    (
        "approvals",
        &[
            "create_ticket",
            "update_ticket",
            "assign_ticket",
            "reassign_ticket",
            "close_ticket",
            "ticket_relation",
            "create_goal",
            "update_goal_progress",
            "create_approval",
            "decide_approval",
            "comment_approval",
            "create_work_product",
            "save_work_product_revision",
            "create_runtime_profile",
            "install_skill",
            "update_skill",
        ],
    ),
    // spec "Enclosure (rig) tools": all registered — browser_use, computer_use, rig_close
    // (enclosureControl) and rig_list (none) in tools/rigs.rs, mobile_use and ios_use
    // (enclosureControl, networkEgress, processSpawn and packageInstall, hence a prompt in
    // chat) in tools/mobile.rs. The spec puts them on no allow-list, so they are callable in
    // chat only (the guardrails deny their classes elsewhere).
];

/// What the guardrails decide for an action class in a mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    Allow,
    /// Ask through the confirmation port first (denied when no approver is connected).
    Prompt,
    Deny,
}

/// One row of the guardrail table: an action class, the annotation hints it implies,
/// and its decision in each mode (chat, plan, review, orchestrate).
#[derive(Clone, Copy, Debug)]
pub struct ClassPolicy {
    pub class: ActionClass,
    /// May destroy state outside the server (`destructiveHint`).
    pub destructive: bool,
    /// Reaches beyond the machine (`openWorldHint`).
    pub open_world: bool,
    /// Indexed by [`Mode`]: chat, plan, review, orchestrate.
    pub by_mode: [Decision; 4],
}

use Decision::{Allow, Deny, Prompt};

/// The guardrails: action class x mode -> allow / prompt / deny. The read-only modes
/// (plan, review, orchestrate) deny every class that acts on the world; writes to
/// workspace data are gated there by the allow-lists instead.
pub const GUARDRAILS: &[ClassPolicy] = &[
    ClassPolicy {
        class: ActionClass::EnclosureControl,
        destructive: true,
        open_world: false,
        by_mode: [Allow, Deny, Deny, Deny],
    },
    ClassPolicy {
        class: ActionClass::NetworkEgress,
        destructive: false,
        open_world: true,
        by_mode: [Allow, Deny, Deny, Deny],
    },
    ClassPolicy {
        class: ActionClass::ProcessSpawn,
        destructive: true,
        open_world: false,
        by_mode: [Allow, Deny, Deny, Deny],
    },
    ClassPolicy {
        class: ActionClass::PackageInstall,
        destructive: true,
        open_world: true,
        by_mode: [Prompt, Deny, Deny, Deny],
    },
    ClassPolicy {
        class: ActionClass::WorkspaceWrite,
        destructive: false,
        open_world: false,
        by_mode: [Allow, Allow, Allow, Allow],
    },
];

fn class_policy(c: ActionClass) -> &'static ClassPolicy {
    GUARDRAILS.iter().find(|p| p.class == c).expect("every action class has a guardrail row (tested)")
}

/// The decision for one class in one mode.
pub fn decide(class: ActionClass, mode: Mode) -> Decision {
    class_policy(class).by_mode[mode.index()]
}

/// Whether `mode`'s allow-list (or the always-allowed sets) lets `tool` be called.
pub fn mode_allows(mode: Mode, tool: &str) -> bool {
    if mode == Mode::Chat || ALWAYS_ALLOWED.iter().any(|(_, t)| t.contains(&tool)) {
        return true;
    }
    MODE_ALLOWLISTS.iter().any(|(m, t)| *m == mode && t.contains(&tool))
}

/// Whether a tool may be called in a mode, and why not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Gate {
    Allowed,
    /// Callable once confirmed: `why` is what the approval says.
    NeedsApproval {
        why: String,
    },
    /// Refused: `error` is `mode` or `guardrail`; `reason` says what would allow it.
    Blocked {
        error: &'static str,
        reason: String,
        allowed_in: Vec<Mode>,
    },
}

impl Gate {
    pub fn callable(&self) -> bool {
        !matches!(self, Gate::Blocked { .. })
    }
}

fn how_to_leave(mode: Mode) -> &'static str {
    match mode {
        Mode::Plan => "leave plan mode with exit_plan_mode (asks for approval)",
        _ => "change the mode with set_mode (asks for approval when leaving a restricted mode)",
    }
}

fn modes_list(modes: &[Mode]) -> String {
    if modes.is_empty() {
        return "no mode".into();
    }
    modes.iter().map(|m| m.as_str()).collect::<Vec<_>>().join(", ")
}

/// The one answer to "may this conversation call this tool now?": mode allow-list,
/// then guardrails, then approvals. The dispatcher enforces it; discovery reports it.
pub fn gate(mode: Mode, tool: &ToolDef) -> Gate {
    if !mode_allows(mode, tool.name) {
        let allowed_in: Vec<Mode> = Mode::ALL.into_iter().filter(|m| mode_allows(*m, tool.name)).collect();
        return Gate::Blocked {
            error: "mode",
            reason: format!(
                "{} is not allowed in {mode} mode (not on its allow-list); it is allowed in {}: {}",
                tool.name,
                modes_list(&allowed_in),
                how_to_leave(mode)
            ),
            allowed_in,
        };
    }
    let denied: Vec<ActionClass> =
        tool.action_classes.iter().copied().filter(|c| decide(*c, mode) == Decision::Deny).collect();
    if !denied.is_empty() {
        let allowed_in: Vec<Mode> = Mode::ALL
            .into_iter()
            .filter(|m| mode_allows(*m, tool.name) && tool.action_classes.iter().all(|c| decide(*c, *m) != Deny))
            .collect();
        return Gate::Blocked {
            error: "guardrail",
            reason: format!(
                "{} declares {} which {mode} mode denies (a read-only mode); it is allowed in {}: {}",
                tool.name,
                class_names(&denied),
                modes_list(&allowed_in),
                how_to_leave(mode)
            ),
            allowed_in,
        };
    }
    let mut why = Vec::new();
    if tool.requires_approval {
        why.push(format!("{} requires approval before it runs", tool.name));
    }
    let prompted: Vec<ActionClass> =
        tool.action_classes.iter().copied().filter(|c| decide(*c, mode) == Decision::Prompt).collect();
    if !prompted.is_empty() {
        why.push(format!(
            "{} declares {} which {mode} mode allows only when confirmed",
            tool.name,
            class_names(&prompted)
        ));
    }
    if why.is_empty() {
        Gate::Allowed
    } else {
        Gate::NeedsApproval { why: why.join("; ") }
    }
}

fn class_names(classes: &[ActionClass]) -> String {
    classes
        .iter()
        .filter_map(|c| serde_json::to_value(c).ok()?.as_str().map(str::to_string))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The annotation hints sent to clients, from the same data the guardrails read:
/// `(readOnlyHint, destructiveHint, openWorldHint)`.
pub fn hints(tool: &ToolDef) -> (bool, bool, bool) {
    let read_only = tool.read_only && tool.action_classes.is_empty();
    let destructive = !read_only && tool.action_classes.iter().any(|c| class_policy(*c).destructive);
    let open_world = tool.action_classes.iter().any(|c| class_policy(*c).open_world);
    (read_only, destructive, open_world)
}

/// Every name the policy tables hold (for the "tables name registered tools" check).
pub fn table_names() -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    for (set, tools) in ALWAYS_ALLOWED {
        out.extend(tools.iter().map(|t| (format!("ALWAYS_ALLOWED[{set}]"), *t)));
    }
    for (mode, tools) in MODE_ALLOWLISTS {
        out.extend(tools.iter().map(|t| (format!("MODE_ALLOWLISTS[{mode}]"), *t)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_class_has_one_guardrail_row() {
        for c in ActionClass::ALL {
            assert_eq!(GUARDRAILS.iter().filter(|p| p.class == c).count(), 1, "{c:?}");
        }
        assert_eq!(GUARDRAILS.len(), ActionClass::ALL.len());
    }

    #[test]
    fn read_only_modes_deny_what_acts_on_the_world() {
        for m in [Mode::Plan, Mode::Review, Mode::Orchestrate] {
            for c in [
                ActionClass::EnclosureControl,
                ActionClass::NetworkEgress,
                ActionClass::ProcessSpawn,
                ActionClass::PackageInstall,
            ] {
                assert_eq!(decide(c, m), Decision::Deny, "{c:?} in {m}");
            }
        }
        assert_eq!(decide(ActionClass::PackageInstall, Mode::Chat), Decision::Prompt);
    }

    #[test]
    fn modes_parse_and_print() {
        for m in Mode::ALL {
            assert_eq!(Mode::parse(m.as_str()), Ok(m));
            assert_eq!(serde_json::to_value(m).unwrap(), m.as_str());
        }
        assert!(Mode::parse("yolo").unwrap_err().contains("chat, plan, review, orchestrate"));
    }

    #[test]
    fn chat_allows_everything_restricted_modes_their_lists() {
        assert!(mode_allows(Mode::Chat, "anything"));
        assert!(mode_allows(Mode::Plan, "code_callers"));
        assert!(mode_allows(Mode::Plan, "exit_plan_mode"));
        assert!(!mode_allows(Mode::Review, "exit_plan_mode"));
        assert!(!mode_allows(Mode::Orchestrate, "anything"));
    }
}
