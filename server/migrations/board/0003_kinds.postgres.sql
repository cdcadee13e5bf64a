-- A board approval's kind is checked by the server (`BoardKind::parse` refuses a kind it does
-- not know), no longer by a CHECK listing them: a new kind (plan, from run_playbook) needs no
-- migration.
ALTER TABLE board_approvals DROP CONSTRAINT IF EXISTS board_approvals_kind_check;
