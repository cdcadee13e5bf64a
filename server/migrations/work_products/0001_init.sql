-- Work products (a ticket's durable deliverables) and their revisions, numbered per work
-- product; `current_revision_id` moves only from the base a writer read (compare and set),
-- so two racing writers never overwrite each other: one wins, the other is told the current
-- revision.
CREATE TABLE work_products (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    ticket_id TEXT NOT NULL REFERENCES tickets(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    title TEXT NOT NULL,
    current_revision_id TEXT NOT NULL,
    revisions BIGINT NOT NULL,
    created_by TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX work_products_ticket ON work_products (workspace_id, ticket_id, created_at);
CREATE TABLE work_product_revisions (
    id TEXT PRIMARY KEY,
    work_product_id TEXT NOT NULL REFERENCES work_products(id) ON DELETE CASCADE,
    number BIGINT NOT NULL,
    base_revision_id TEXT,
    content TEXT NOT NULL,
    author TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (work_product_id, number)
);
