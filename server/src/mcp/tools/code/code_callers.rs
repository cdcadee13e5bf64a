//! code_callers: who calls a symbol, over the call graph (`crate::ops`).

use super::{graph_tool, GraphArgs, GraphOut};
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::ops::GraphOp;

pub const DECL: Decl = Decl {
    name: "code_callers",
    title: "Callers",
    description: "Find who calls a function or method (its callers): list the symbols that call or depend on a symbol (incoming edges), breadth-first up to depth, each with its distance, call sites (file:line), the path back and a confidence.",
    set: ToolSet::Code,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Always,
    hints: Hints::READ,
};

pub async fn code_callers(ctx: Ctx<String>, a: GraphArgs) -> Result<GraphOut, ToolError> {
    graph_tool(ctx, a, GraphOp::Callers).await
}
