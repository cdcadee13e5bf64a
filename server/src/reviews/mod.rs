//! Reviews on the call graph: a change's symbols, impact, areas and walkthrough
//! ([`change`]), the rule that finalizes a review ([`consensus`]), the key that suppresses a
//! dismissed finding ([`suppress`]), git for both ([`git`]), diagrams checked against the
//! graph ([`diagram`]) and a finished review placed onto a pull request's diff for GitHub
//! ([`publish`]). The store is `store::reviews`, the tools `mcp/tools/reviews/`.

pub mod change;
pub mod consensus;
pub mod diagram;
pub mod git;
pub mod publish;
pub mod suppress;
