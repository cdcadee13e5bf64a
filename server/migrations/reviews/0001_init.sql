-- Reviews on the call graph: a review of a change (base..head of a workspace repository, or
-- a GitHub pull request), its areas (cohorts) with their changed symbols and blast radius,
-- its findings (nodes) with confirmations, its reviewers' verdicts (history kept), its trace
-- of events, its diagrams, and the suppressions dismissed findings leave behind.
CREATE TABLE reviews (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    repo TEXT NOT NULL,
    -- The revisions as given, and the commits they named when the review started.
    base_rev TEXT NOT NULL,
    head_rev TEXT NOT NULL,
    base_sha TEXT NOT NULL,
    head_sha TEXT NOT NULL,
    -- The GitHub pull request it reviews, when it does.
    pr BIGINT,
    space_id TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('open', 'finalized')),
    -- JSON: the walkthrough's steps.
    walkthrough TEXT NOT NULL,
    -- Set by finalize_review.
    verdict TEXT CHECK (verdict IN ('ship', 'hold', 'block')),
    summary TEXT,
    finalized_by TEXT,
    finalized_at BIGINT,
    created_by TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX reviews_workspace ON reviews (workspace_id, created_at);
CREATE TABLE review_cohorts (
    review_id TEXT NOT NULL REFERENCES reviews(id) ON DELETE CASCADE,
    area TEXT NOT NULL,
    position BIGINT NOT NULL,
    -- JSON: the area's modules, files, changed symbols, and callers' files.
    modules TEXT NOT NULL,
    files TEXT NOT NULL,
    symbols TEXT NOT NULL,
    callers BIGINT NOT NULL,
    caller_files TEXT NOT NULL,
    summary TEXT,
    summary_by TEXT,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (review_id, area)
);
CREATE TABLE review_nodes (
    id TEXT PRIMARY KEY,
    review_id TEXT NOT NULL REFERENCES reviews(id) ON DELETE CASCADE,
    area TEXT NOT NULL,
    file TEXT NOT NULL,
    line BIGINT NOT NULL,
    priority TEXT NOT NULL CHECK (priority IN ('P0', 'P1', 'P2', 'P3')),
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    -- Who raised it: an agent's id or principal:NAME, and the name to show.
    author_id TEXT NOT NULL,
    author TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('open', 'resolved', 'dismissed')),
    -- resolve_review_node's commit or explanation; dismiss_review_node's reason.
    resolved_commit TEXT,
    resolution TEXT,
    closed_by TEXT,
    -- blake3 of (repo, file, the line's context, title): what a suppression matches.
    suppression_key TEXT NOT NULL,
    -- The memory fact that suppressed it when it was raised.
    suppressed_by TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX review_nodes_review ON review_nodes (review_id, created_at);
CREATE TABLE review_confirmations (
    node_id TEXT NOT NULL REFERENCES review_nodes(id) ON DELETE CASCADE,
    confirmer_id TEXT NOT NULL,
    confirmer TEXT NOT NULL,
    at BIGINT NOT NULL,
    PRIMARY KEY (node_id, confirmer_id)
);
CREATE TABLE review_verdicts (
    id TEXT PRIMARY KEY,
    review_id TEXT NOT NULL REFERENCES reviews(id) ON DELETE CASCADE,
    reviewer_id TEXT NOT NULL,
    reviewer TEXT NOT NULL,
    verdict TEXT NOT NULL CHECK (verdict IN ('ship', 'hold', 'block')),
    confidence DOUBLE PRECISION NOT NULL,
    explanation TEXT NOT NULL,
    -- 1 for each reviewer's latest; a later verdict sets the earlier one's to 0.
    current BIGINT NOT NULL,
    at BIGINT NOT NULL
);
CREATE INDEX review_verdicts_review ON review_verdicts (review_id, reviewer_id, at);
CREATE TABLE review_events (
    id TEXT PRIMARY KEY,
    review_id TEXT NOT NULL REFERENCES reviews(id) ON DELETE CASCADE,
    node_id TEXT,
    -- start, node, confirm, resolve, dismiss, peer_review, verdict, summary, diagram, finalize.
    action TEXT NOT NULL,
    actor TEXT NOT NULL,
    text TEXT NOT NULL,
    at BIGINT NOT NULL
);
CREATE INDEX review_events_review ON review_events (review_id, id);
CREATE TABLE review_suppressions (
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    fact_id TEXT NOT NULL,
    repo TEXT NOT NULL,
    file TEXT NOT NULL,
    title TEXT NOT NULL,
    node_id TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (workspace_id, key)
);
CREATE TABLE review_diagrams (
    id TEXT PRIMARY KEY,
    review_id TEXT NOT NULL REFERENCES reviews(id) ON DELETE CASCADE,
    area TEXT NOT NULL,
    kind TEXT NOT NULL,
    -- JSON: the diagram as given, and its check against the head's graph.
    diagram TEXT NOT NULL,
    marks TEXT NOT NULL,
    forced BIGINT NOT NULL,
    created_by TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX review_diagrams_review ON review_diagrams (review_id, area, created_at);
