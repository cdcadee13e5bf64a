//! Team and pipeline tools: preview_trigger (which runs a hypothetical event would start,
//! and why not; it records nothing), submit_output (a pipeline run hands back its output,
//! validated against the output schema its pipeline declared), record_team_activity (a team
//! lead's entry against a ticket). Pipelines are the operator's (`[[pipelines]]` in
//! config.toml, [`crate::pipelines`]); no tool declares or changes one.
//!
//! A team lead is the operator, or an agent with reports in the org chart (an agent whose
//! `reports_to` names it: get_org_chart); anyone else's record_team_activity is refused.

mod preview_trigger;
mod record_team_activity;
mod submit_output;

use crate::mcp::tool::Registry;

/// The area's tools.
pub fn tools(r: &mut Registry) {
    r.add(preview_trigger::DECL, preview_trigger::preview_trigger);
    r.add(submit_output::DECL, submit_output::submit_output);
    r.add(record_team_activity::DECL, record_team_activity::record_team_activity);
}
