//! code_callees: what a symbol calls, over the call graph (`crate::ops`).

use super::{graph_tool, GraphArgs, GraphOut};
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::ops::GraphOp;

pub const DECL: Decl = Decl {
    name: "code_callees",
    title: "Callees",
    description: "What this function or method calls: list the symbols that a symbol calls or depends on (outgoing edges), external names included (`json.loads`), breadth-first up to depth.",
    set: ToolSet::Code,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Always,
    hints: Hints::READ,
};

pub async fn code_callees(ctx: Ctx<String>, a: GraphArgs) -> Result<GraphOut, ToolError> {
    graph_tool(ctx, a, GraphOp::Callees).await
}
