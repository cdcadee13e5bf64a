//! Orchestration tools: propose_orchestration — a structured multi-agent plan checked
//! ([`crate::pipelines::orchestration`]: every violation, by code and JSON pointer) and, when
//! clean, put on the board for approval. Nothing is hired, decomposed or completed in the
//! call: the board's decision does it ([`crate::store::orchestration`]).

mod propose_orchestration;

use crate::mcp::tool::Registry;

/// The area's tools.
pub fn tools(r: &mut Registry) {
    r.add(propose_orchestration::DECL, propose_orchestration::propose_orchestration);
}
