//! Policy: conversation modes, the action-class guardrails and the callability every
//! discovery tool reports. The dispatcher enforces them on every `tools/call`, and
//! `tools/list`, `list_my_tools` and `search_tool_bm25` answer from the same [`gate`].
//!
//! Which modes may call a tool and whether it needs an approval are in its declaration
//! (`tool::Decl`); the tables shown to people (docs/mcp-tools.md, testdata/policy.md) are
//! derived from the declarations. [`SPEC_TABLES`] is the spec's word, which a test holds
//! every declaration to.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::tool::{ActionClass, ErrorKind, ToolDef};

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

/// The spec's tables (spec/registry.md: "Mode-based tool gating", "Approval-gated tools"),
/// whole — the tools registered and those still to come — with this server's own tools
/// added where they belong (`code_read`, the code graph's read; `set_mode`, how a
/// conversation changes mode, which every mode must reach; the workspace reads, "read-only
/// context fetches" every mode needs; `exit_plan_mode` in plan). The policy is derived from
/// the declarations, not from here: this is the oracle a test holds every declaration to.
/// "plan"'s ticket-completion verbs apply to the conversation's dispatched ticket only.
pub const SPEC_TABLES: &[(&str, &[&str])] = &[
    (
        "always",
        &[
            // memory and artifacts
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
            // code graph
            "search_code",
            "code_symbol",
            "code_callers",
            "code_callees",
            "code_impact",
            "code_read",
            // run mechanics
            "search_tool_bm25",
            "list_my_tools",
            "todo_write",
            "todo_read",
            "set_mode",
        ],
    ),
    (
        "plan",
        &[
            "list_workspaces",
            "list_repos",
            "exit_plan_mode",
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
            "list_workspaces",
            "list_repos",
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
            "list_workspaces",
            "list_repos",
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
];

/// The names of one of [`SPEC_TABLES`].
pub fn spec_table(table: &str) -> &'static [&'static str] {
    SPEC_TABLES.iter().find(|(t, _)| *t == table).map_or(&[], |(_, names)| names)
}

/// Whether `tool`'s declared modes and approval are what [`SPEC_TABLES`] says.
pub fn agrees_with_spec(tool: &ToolDef) -> Result<(), String> {
    let d = &tool.decl;
    let always = spec_table("always").contains(&d.name);
    if always != matches!(d.modes, super::tool::Modes::Always) {
        return Err(format!(
            "{}: the spec {} it in every mode",
            d.name,
            if always { "allows" } else { "does not allow" }
        ));
    }
    for m in [Mode::Plan, Mode::Review, Mode::Orchestrate] {
        let listed = always || spec_table(m.as_str()).contains(&d.name);
        if d.modes.allows(m) != listed {
            return Err(format!(
                "{}: the spec {} it in {m} mode",
                d.name,
                if listed { "allows" } else { "does not allow" }
            ));
        }
    }
    if d.approval != spec_table("approvals").contains(&d.name) {
        return Err(format!("{}: the spec's approval list {} it", d.name, if d.approval { "lacks" } else { "has" }));
    }
    Ok(())
}

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

/// Whether `tool`'s declaration lets `mode` call it.
pub fn mode_allows(mode: Mode, tool: &ToolDef) -> bool {
    tool.decl.modes.allows(mode)
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
        error: ErrorKind,
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
    let name = tool.decl.name;
    let classes = tool.decl.classes;
    if !mode_allows(mode, tool) {
        let allowed_in: Vec<Mode> = Mode::ALL.into_iter().filter(|m| mode_allows(*m, tool)).collect();
        return Gate::Blocked {
            error: ErrorKind::Mode,
            reason: format!(
                "{} is not allowed in {mode} mode (not on its allow-list); it is allowed in {}: {}",
                name,
                modes_list(&allowed_in),
                how_to_leave(mode)
            ),
            allowed_in,
        };
    }
    let denied: Vec<ActionClass> = classes.iter().copied().filter(|c| decide(*c, mode) == Decision::Deny).collect();
    if !denied.is_empty() {
        let allowed_in: Vec<Mode> = Mode::ALL
            .into_iter()
            .filter(|m| mode_allows(*m, tool) && classes.iter().all(|c| decide(*c, *m) != Deny))
            .collect();
        return Gate::Blocked {
            error: ErrorKind::Guardrail,
            reason: format!(
                "{} declares {} which {mode} mode denies (a read-only mode); it is allowed in {}: {}",
                name,
                class_names(&denied),
                modes_list(&allowed_in),
                how_to_leave(mode)
            ),
            allowed_in,
        };
    }
    let mut why = Vec::new();
    if tool.decl.approval {
        why.push(format!("{name} requires approval before it runs"));
    }
    let prompted: Vec<ActionClass> = classes.iter().copied().filter(|c| decide(*c, mode) == Decision::Prompt).collect();
    if !prompted.is_empty() {
        why.push(format!("{name} declares {} which {mode} mode allows only when confirmed", class_names(&prompted)));
    }
    if why.is_empty() {
        Gate::Allowed
    } else {
        Gate::NeedsApproval { why: why.join("; ") }
    }
}

fn class_names(classes: &[ActionClass]) -> String {
    classes.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(", ")
}

/// Whether a tool's hints agree with what its action classes imply (a class marked
/// destructive or open-world in [`GUARDRAILS`] needs the hint; a tool with any class is not
/// read-only). A test holds every declaration to it.
pub fn hints_agree(tool: &ToolDef) -> Result<(), String> {
    let h = tool.decl.hints;
    let classes = tool.decl.classes;
    if h.read_only && !classes.is_empty() {
        return Err(format!("{} declares action classes but says it is read-only", tool.decl.name));
    }
    if classes.iter().any(|c| class_policy(*c).destructive) && !h.destructive {
        return Err(format!("{} declares a destructive action class but not the destructive hint", tool.decl.name));
    }
    if classes.iter().any(|c| class_policy(*c).open_world) && !h.open_world {
        return Err(format!("{} declares an open-world action class but not the open-world hint", tool.decl.name));
    }
    Ok(())
}

/// The annotation hints sent to clients: `(readOnlyHint, destructiveHint, openWorldHint)`.
pub fn hints(tool: &ToolDef) -> (bool, bool, bool) {
    let h = tool.decl.hints;
    (h.read_only, !h.read_only && h.destructive, h.open_world)
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
        use crate::mcp::tool::Modes;
        assert!(Modes::Chat.allows(Mode::Chat) && !Modes::Chat.allows(Mode::Plan));
        assert!(Mode::ALL.into_iter().all(|m| Modes::Always.allows(m)));
        let plan = Modes::In(&[Mode::Plan]);
        assert!(plan.allows(Mode::Chat) && plan.allows(Mode::Plan) && !plan.allows(Mode::Review));
    }
}
