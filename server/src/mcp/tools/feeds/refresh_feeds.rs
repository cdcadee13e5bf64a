//! refresh_feeds: fetch every active feed now.

use crate::feeds::RefreshReport;
use crate::mcp::tool::{ActionClass, Ctx, Decl, Hints, Modes, NoArgs, Scope, ToolError, ToolSet};

pub const DECL: Decl = Decl {
    name: "refresh_feeds",
    title: "Refresh feeds",
    description: "Re-fetch all active feeds, right now (conditional GET: a feed that has not changed answers 304 and changes nothing). Reports per feed what was new or updated and what failed; one feed failing never affects the others.",
    set: ToolSet::Feeds,
    scope: Scope::Global,
    classes: &[ActionClass::NetworkEgress],
    approval: false,
    modes: Modes::Chat,
    hints: Hints { read_only: false, destructive: false, idempotent: false, open_world: true },
};

pub async fn refresh_feeds(ctx: Ctx<()>, _: NoArgs) -> Result<RefreshReport, ToolError> {
    let services = ctx.services.clone();
    let report = crate::feeds::refresh(&services.store, &services.policy.feeds, |done, total| {
        ctx.progress(done as f64, Some(total as f64), Some(format!("{done} of {total} feeds")))
    })
    .await?;
    Ok(report)
}
