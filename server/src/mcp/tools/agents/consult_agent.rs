//! consult_agent: the best-matching specialist, by its skills and description, brought into
//! a space and started with a brief.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{caller_name, dispatch, run_out, RunOut};
use crate::agents::Brief;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::mcp::tools::messaging::{post, space_of};
use crate::store::{Member, SpaceKind};

pub const DECL: Decl = Decl {
    name: "consult_agent",
    title: "Consult an agent",
    description: "Find the agent whose skills and description best match a brief (BM25 over them; every candidate's score and the terms it matched are shown), add it to the space (a new one unless space_id is given) and start it with the brief. When no agent matches, says so: never a random agent.",
    set: ToolSet::Agents,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Chat,
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConsultAgentArgs {
    /// What you need, in words: it is matched against the agents' skills and descriptions,
    /// and given to the chosen one.
    #[schemars(length(min = 1, max = 20000))]
    pub brief: String,
    /// The space to consult in (default: a new space with you and the chosen agent).
    #[schemars(length(min = 1, max = 100))]
    pub space_id: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct Candidate {
    pub agent_id: String,
    pub name: String,
    pub score: f32,
    /// The brief's terms found in its skills, description or name.
    pub matched: Vec<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct ConsultAgentOut {
    /// The chosen agent (none when no agent matches the brief).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chosen: Option<Candidate>,
    /// Every agent that matched, best first.
    pub candidates: Vec<Candidate>,
    /// Why the chosen one won, or why none was.
    pub why: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub space_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<RunOut>,
}

pub async fn consult_agent(ctx: Ctx<String>, a: ConsultAgentArgs) -> Result<ConsultAgentOut, ToolError> {
    let store = &ctx.services.store;
    let me = ctx.principal.as_member();
    let agents: Vec<_> =
        store.agents().list(&ctx.workspace).await?.into_iter().filter(|ag| ag.id != me.member).collect();
    let space = match &a.space_id {
        Some(id) => Some(space_of(&ctx, id, "/space_id").await?),
        None => None,
    };
    let docs: Vec<Vec<String>> = agents
        .iter()
        .map(|ag| crate::rank::words(&format!("{} {} {}", ag.name, ag.skills.join(" "), ag.description)))
        .collect();
    let terms = crate::rank::content_terms(&a.brief);
    let candidates: Vec<Candidate> = crate::rank::bm25(&docs, &terms)
        .into_iter()
        .map(|(i, score)| {
            let matched: Vec<String> = terms.iter().filter(|t| docs[i].contains(t)).cloned().collect();
            Candidate { agent_id: agents[i].id.clone(), name: agents[i].name.clone(), score, matched }
        })
        .collect();
    let Some(best) = candidates.first() else {
        return Ok(ConsultAgentOut {
            chosen: None,
            why: format!(
                "no agent of workspace '{}' has a skill or description matching the brief ({} agents looked at); none was consulted",
                ctx.workspace,
                agents.len()
            ),
            candidates,
            space_id: space.map(|s| s.id),
            run: None,
        });
    };
    let agent = agents.iter().find(|ag| ag.id == best.agent_id).expect("a candidate is an agent").clone();
    let why = match candidates.get(1) {
        Some(next) => format!(
            "{} scored {:.2} (matched: {}), ahead of {} at {:.2}",
            best.name,
            best.score,
            best.matched.join(", "),
            next.name,
            next.score
        ),
        None => format!("{} is the only agent matching the brief (matched: {})", best.name, best.matched.join(", ")),
    };
    let them = Member { member: agent.id.clone(), kind: "agent".into(), name: agent.name.clone() };
    let space = match space {
        Some(s) => {
            store.spaces().add_member(&s.id, &them).await?;
            s
        }
        None => {
            let title: String = a.brief.chars().take(60).collect();
            store.spaces().create(&ctx.workspace, SpaceKind::Free, &format!("consult: {title}"), &[me, them]).await?
        }
    };
    let m = post(&ctx, &space.id, &a.brief, None).await?;
    let brief = format!(
        "{} consults you (you were chosen for: {}), in space {} (message {}):\n\n{}\n\nWork in that space: read it with get_messages, answer with send_message (space_id {}, reply_to {}).",
        caller_name(&ctx),
        best.matched.join(", "),
        space.id,
        m.id,
        a.brief,
        space.id,
        m.id
    );
    let run = dispatch(
        &ctx,
        &agent,
        Brief {
            reason: "consult",
            text: brief,
            space_id: Some(space.id.clone()),
            message_id: Some(m.id),
            ticket_id: None,
        },
    )
    .await?;
    let chosen = Candidate {
        agent_id: best.agent_id.clone(),
        name: best.name.clone(),
        score: best.score,
        matched: best.matched.clone(),
    };
    Ok(ConsultAgentOut {
        chosen: Some(chosen),
        why,
        candidates,
        space_id: Some(space.id),
        run: Some(run_out(&run, &agent)),
    })
}
