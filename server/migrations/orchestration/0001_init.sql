-- Orchestration plans: a clean plan proposed for approval (its board approval, one plan
-- each), then decomposed once after the approval — `status` moves proposed → decomposing →
-- decomposed (or failed, with `error`), or proposed → rejected, each step a compare and set —
-- into a parent ticket and one ticket per task (`orchestration_tasks`).
CREATE TABLE orchestration_plans (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    approval_id TEXT NOT NULL UNIQUE REFERENCES board_approvals(id) ON DELETE CASCADE,
    title TEXT NOT NULL,
    plan TEXT NOT NULL,
    status TEXT NOT NULL,
    proposer TEXT NOT NULL,
    proposer_name TEXT NOT NULL,
    proposer_kind TEXT NOT NULL,
    parent_ticket_id TEXT,
    error TEXT,
    created_at BIGINT NOT NULL,
    decided_at BIGINT
);
CREATE TABLE orchestration_tasks (
    plan_id TEXT NOT NULL REFERENCES orchestration_plans(id) ON DELETE CASCADE,
    task_id TEXT NOT NULL,
    ticket_id TEXT NOT NULL REFERENCES tickets(id) ON DELETE CASCADE,
    position BIGINT NOT NULL,
    PRIMARY KEY (plan_id, task_id)
);
