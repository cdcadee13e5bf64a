//! The rule finalize_review applies: "what do the reviewers agree on, and does it ship?"
//!
//! Per finding: `dismissed` or `resolved` when it was closed so; `confirmed` when open and at
//! least one reviewer other than its author confirmed it; `unconfirmed` otherwise.
//!
//! Per review, the first rule that applies:
//! 1. an open confirmed P0 → **block**;
//! 2. an open confirmed P1 → **hold**, or block when the weighed verdicts (rule 3) say block;
//! 3. the reviewers' current verdicts weighed by their confidence (the sum per verdict); the
//!    heaviest wins, a tie goes to the stricter (block > hold > ship);
//! 4. no verdict and nothing confirmed → **hold**: nobody said it may ship.
//!
//! Unconfirmed findings weigh nothing (one reviewer alone blocks nothing); P2 and P3 never
//! decide.

use serde::Serialize;

use crate::store::reviews::{Node, NodePriority, NodeStatus, ReviewerVerdict, Verdict};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Consensus {
    Confirmed,
    Unconfirmed,
    Resolved,
    Dismissed,
}

pub fn node_consensus(n: &Node) -> Consensus {
    match n.status {
        NodeStatus::Dismissed => Consensus::Dismissed,
        NodeStatus::Resolved => Consensus::Resolved,
        NodeStatus::Open if n.confirmed_by.is_empty() => Consensus::Unconfirmed,
        NodeStatus::Open => Consensus::Confirmed,
    }
}

/// The review's verdict and which rule gave it (for the summary).
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Decision {
    pub verdict: Verdict,
    /// 1 to 4, as in the rule.
    pub rule: u8,
    pub why: String,
    /// The confidence summed per verdict (ship, hold, block).
    pub weights: [f64; 3],
}

/// The weighed verdict of rule 3, if any verdict was given.
fn weighed(verdicts: &[ReviewerVerdict]) -> (Option<Verdict>, [f64; 3]) {
    let mut w = [0.0f64; 3];
    let mut given = [false; 3];
    for v in verdicts.iter().filter(|v| v.current) {
        w[v.verdict as usize] += v.confidence;
        given[v.verdict as usize] = true;
    }
    // Only verdicts someone gave compete; the stricter first, so a tie keeps it: block > hold > ship.
    let best = [Verdict::Block, Verdict::Hold, Verdict::Ship].into_iter().filter(|v| given[*v as usize]).fold(
        None::<Verdict>,
        |best, v| match best {
            Some(b) if w[b as usize] >= w[v as usize] => Some(b),
            _ => Some(v),
        },
    );
    (best, w)
}

pub fn decide(nodes: &[Node], verdicts: &[ReviewerVerdict]) -> Decision {
    let confirmed = |p: NodePriority| -> Vec<&Node> {
        nodes.iter().filter(|n| n.priority == p && node_consensus(n) == Consensus::Confirmed).collect()
    };
    let titles = |v: &[&Node]| v.iter().map(|n| format!("{} ({})", n.title, n.id)).collect::<Vec<_>>().join(", ");
    let (weighed, weights) = weighed(verdicts);
    let p0 = confirmed(NodePriority::P0);
    if !p0.is_empty() {
        return Decision {
            verdict: Verdict::Block,
            rule: 1,
            why: format!("an open confirmed P0 blocks: {}", titles(&p0)),
            weights,
        };
    }
    let p1 = confirmed(NodePriority::P1);
    if !p1.is_empty() {
        let verdict = if weighed == Some(Verdict::Block) { Verdict::Block } else { Verdict::Hold };
        return Decision {
            verdict,
            rule: 2,
            why: format!(
                "an open confirmed P1 holds: {}{}",
                titles(&p1),
                if verdict == Verdict::Block { "; the weighed verdicts say block" } else { "" }
            ),
            weights,
        };
    }
    match weighed {
        Some(v) => Decision {
            verdict: v,
            rule: 3,
            why: format!(
                "the reviewers' verdicts weighed by confidence: ship {:.2}, hold {:.2}, block {:.2}",
                weights[0], weights[1], weights[2]
            ),
            weights,
        },
        None => Decision {
            verdict: Verdict::Hold,
            rule: 4,
            why: "no reviewer gave a verdict and nothing is confirmed: nobody said it may ship".into(),
            weights,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(p: NodePriority, status: NodeStatus, confirmed: bool) -> Node {
        Node {
            id: format!("nd-{p:?}"),
            review_id: "rv".into(),
            area: "a".into(),
            file: "f".into(),
            line: 1,
            priority: p,
            title: "t".into(),
            body: String::new(),
            author: "a".into(),
            author_id: "a".into(),
            status,
            confirmed_by: if confirmed { vec!["b".into()] } else { vec![] },
            resolved_commit: None,
            resolution: None,
            closed_by: None,
            suppression_key: String::new(),
            suppressed_by: None,
            created_at: 0,
            updated_at: 0,
        }
    }

    fn verdict(v: Verdict, c: f64, current: bool) -> ReviewerVerdict {
        ReviewerVerdict {
            id: "vd".into(),
            reviewer: "r".into(),
            reviewer_id: "r".into(),
            verdict: v,
            confidence: c,
            explanation: String::new(),
            current,
            at: 0,
        }
    }

    use NodePriority::*;
    use NodeStatus::*;
    use Verdict::*;

    #[test]
    fn the_rule_case_by_case() {
        let ships = [verdict(Ship, 0.9, true)];
        // 1: a confirmed open P0 blocks whatever the verdicts.
        assert_eq!(
            (decide(&[node(P0, Open, true)], &ships).verdict, decide(&[node(P0, Open, true)], &ships).rule),
            (Block, 1)
        );
        // An unconfirmed, resolved or dismissed P0 does not.
        for n in [node(P0, Open, false), node(P0, Resolved, true), node(P0, Dismissed, true)] {
            assert_eq!(decide(&[n], &ships).verdict, Ship);
        }
        // 2: a confirmed P1 holds, or blocks when the verdicts do.
        assert_eq!(decide(&[node(P1, Open, true)], &ships).verdict, Hold);
        assert_eq!(decide(&[node(P1, Open, true)], &[verdict(Block, 0.6, true)]).verdict, Block);
        // P2 and P3 never decide.
        assert_eq!(decide(&[node(P2, Open, true), node(P3, Open, true)], &ships).rule, 3);
        // 3: weighed by confidence; a replaced verdict weighs nothing.
        let v =
            [verdict(Ship, 0.5, true), verdict(Ship, 0.4, true), verdict(Block, 0.8, true), verdict(Block, 1.0, false)];
        let d = decide(&[], &v);
        assert_eq!((d.verdict, d.rule, d.weights), (Ship, 3, [0.9, 0.0, 0.8]));
        // Ties go to the stricter.
        assert_eq!(decide(&[], &[verdict(Ship, 0.5, true), verdict(Hold, 0.5, true)]).verdict, Hold);
        assert_eq!(decide(&[], &[verdict(Block, 0.5, true), verdict(Hold, 0.5, true)]).verdict, Block);
        assert_eq!(decide(&[], &[verdict(Ship, 0.0, true)]).verdict, Ship);
        // 4: nothing said.
        assert_eq!((decide(&[node(P2, Open, false)], &[]).verdict, decide(&[], &[]).rule), (Hold, 4));
    }
}
