//! code_impact: what may break if a symbol changes, over the call graph (`crate::ops`).

use super::{graph_tool, GraphArgs, GraphOut};
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::ops::GraphOp;

pub const DECL: Decl = Decl {
    name: "code_impact",
    title: "Impact",
    description: "What breaks if this function, method or class changes: its transitive blast radius, every symbol that reaches it through calls, up to depth (default 3), nearest first.",
    set: ToolSet::Code,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Always,
    hints: Hints::READ,
};

pub async fn code_impact(ctx: Ctx<String>, a: GraphArgs) -> Result<GraphOut, ToolError> {
    graph_tool(ctx, a, GraphOp::Impact).await
}
