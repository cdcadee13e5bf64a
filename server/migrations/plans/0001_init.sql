-- Plans (plan mode's output contract) and playbooks (named plan templates with typed
-- {{param}} placeholders). A submitted plan is kept per conversation (`conversation`: the
-- principal and the conversation's lasting name; one plan each, a unique index) and every
-- resubmission is a new version; a plan a playbook produced has no conversation, names its
-- playbook version and the board approval it waits on. A playbook's name is versioned:
-- saving the same name again adds a version.
CREATE TABLE playbooks (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    version BIGINT NOT NULL,
    description TEXT NOT NULL,
    -- JSON: name -> {type, values, required, default, description}.
    params TEXT NOT NULL,
    -- JSON: the PlanDocument template.
    plan TEXT NOT NULL,
    author TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (workspace_id, name, version)
);
CREATE TABLE plans (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    conversation TEXT,
    title TEXT NOT NULL,
    version BIGINT NOT NULL,
    playbook_id TEXT REFERENCES playbooks(id) ON DELETE SET NULL,
    approval_id TEXT REFERENCES board_approvals(id) ON DELETE SET NULL,
    created_by TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (workspace_id, conversation)
);
CREATE TABLE plan_versions (
    plan_id TEXT NOT NULL REFERENCES plans(id) ON DELETE CASCADE,
    version BIGINT NOT NULL,
    -- JSON: the PlanDocument.
    document TEXT NOT NULL,
    author TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (plan_id, version)
);
