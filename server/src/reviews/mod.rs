//! Code review on the call graph: diagrams checked against the graph ([`diagram`]) and a
//! finished review placed onto a pull request's diff for GitHub ([`publish`]).

pub mod diagram;
pub mod publish;
