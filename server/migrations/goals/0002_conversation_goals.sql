-- A conversation's persistent goal, started through the MCP prompts `goal` and `loop`: the
-- conversation it belongs to (its principal and lasting name) and the prompt that started it.
-- A conversation has at most one active goal.
ALTER TABLE goals ADD COLUMN conversation TEXT;
ALTER TABLE goals ADD COLUMN prompt TEXT;
CREATE UNIQUE INDEX goals_conversation_active ON goals (workspace_id, conversation) WHERE status = 'active' AND conversation IS NOT NULL;
