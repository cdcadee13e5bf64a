//! record_observation: a raw observation into the caller's working memory.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::owner;
use super::propose_fact::text_of;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::memory::Observation;

pub const DECL: Decl = Decl {
    name: "record_observation",
    title: "Record an observation",
    description: "Record a raw observation (what the caller saw or measured, unvetted) in the calling agent's working memory; get_my_notes shows the latest. Observations are not searched as facts: propose_fact makes one.",
    set: ToolSet::Memory,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Always,
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordObservationArgs {
    /// The observation.
    #[schemars(length(min = 1, max = 4000))]
    pub text: String,
}

#[derive(Serialize, JsonSchema)]
pub struct RecordObservationOut {
    pub observation: Observation,
}

pub async fn record_observation(ctx: Ctx<String>, a: RecordObservationArgs) -> Result<RecordObservationOut, ToolError> {
    let text = text_of(&a.text)?;
    let observation =
        ctx.services.store.memory().observe(&ctx.workspace, &owner(&ctx).0, &ctx.conversation.id, text).await?;
    Ok(RecordObservationOut { observation })
}
