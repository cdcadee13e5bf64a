-- A board approval's kind is checked by the server (BoardKind::parse refuses a stored kind
-- it does not know), not by the table: a new kind (orchestration, …) needs no migration.
ALTER TABLE board_approvals DROP CONSTRAINT board_approvals_kind_check;
