-- An approved plan_exit is used once: exit_plan_mode records when it took the conversation
-- out of plan mode.
ALTER TABLE board_approvals ADD COLUMN consumed_at BIGINT;
CREATE INDEX board_approvals_conversation ON board_approvals (conversation, kind, created_at);
