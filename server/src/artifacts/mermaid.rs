//! Mermaid blocks drawn as SVG on the server, by a small parser and layout of our own (the
//! mermaid library is JavaScript, and the page runs none):
//!
//! - `flowchart` / `graph` (TD, TB, BT, LR, RL): nodes (`id`, `id[text]`, `id(text)`,
//!   `id([text])`, `id[[text]]`, `id((text))`, `id{text}`, `id{{text}}`, `id>text]`, quoted
//!   text), chains of edges (`-->`, `---`, `-.->`, `==>`, `--o`, `--x`, `<-->`), edge labels
//!   (`-->|text|`, `-- text -->`), `&` groups; `subgraph`/`end`, `classDef`, `class`, `style`,
//!   `linkStyle`, `click` and `%%` comments are read and not drawn. Layered layout: cycles
//!   broken by reversing the edges a depth-first walk finds going back, layers by longest path,
//!   order within layers by barycenter sweeps, then straight edges clipped at the node boxes.
//! - `sequenceDiagram`: `participant`/`actor` (with `as` aliases), messages (`->>`, `-->>`,
//!   `->`, `-->`, `-x`, `--x`, `-)`, `--)`, with `+`/`-` activation marks read and not drawn),
//!   notes (`Note left of|right of|over A[,B]: text`) and `loop`/`alt`/`else`/`opt`/`par`/
//!   `and`/`critical`/`break`/`rect`/`box` … `end` frames; `activate`, `deactivate`,
//!   `autonumber` and `title` are read.
//!
//! Any other diagram kind is shown as its source with a visible note.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::OnceLock;

use regex::Regex;

use super::{escape, escape_into};

/// Why a flowchart or sequence diagram does not parse: the line (1-based) and what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "mermaid line {}: {}", self.line, self.message)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    TopDown,
    BottomUp,
    LeftRight,
    RightLeft,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Rect,
    Round,
    Stadium,
    Subroutine,
    Cylinder,
    Circle,
    Diamond,
    Hexagon,
    Flag,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub id: String,
    pub label: String,
    pub shape: Shape,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stroke {
    Solid,
    Dotted,
    Thick,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub label: Option<String>,
    pub stroke: Stroke,
    /// An arrowhead at the target (and at the source too when `both`).
    pub head: bool,
    pub both: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Flowchart {
    pub direction: Direction,
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum SeqItem {
    Message {
        from: usize,
        to: usize,
        text: String,
        dashed: bool,
        head: Head,
    },
    Note {
        from: usize,
        to: usize,
        text: String,
    },
    /// A frame opens (`loop`, `alt`, …), a section of it starts (`else`, `and`), or it ends.
    Open {
        kind: String,
        label: String,
    },
    Section {
        label: String,
    },
    Close,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Head {
    Filled,
    Open,
    Cross,
    None,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Sequence {
    /// (id, label), in order.
    pub participants: Vec<(String, String)>,
    pub items: Vec<SeqItem>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Diagram {
    Flowchart(Flowchart),
    Sequence(Sequence),
    /// A kind not drawn here (its first word).
    Other(String),
}

fn err(line: usize, message: impl Into<String>) -> ParseError {
    ParseError { line, message: message.into() }
}

/// The lines that count (1-based numbers), front matter and `%%` comments left out.
fn lines(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut in_front = false;
    for (i, l) in text.lines().enumerate() {
        let t = l.trim();
        if out.is_empty() && t == "---" {
            in_front = !in_front;
            continue;
        }
        if in_front || t.is_empty() || t.starts_with("%%") {
            continue;
        }
        out.push((i + 1, t));
    }
    out
}

/// Parses a diagram.
pub fn parse(text: &str) -> Result<Diagram, ParseError> {
    let ls = lines(text);
    let Some(&(n, head)) = ls.first() else {
        return Err(err(1, "empty: a diagram starts with its kind (flowchart TD, sequenceDiagram, …)"));
    };
    let mut words = head.split_whitespace();
    let kind = words.next().unwrap_or_default().trim_end_matches(';');
    match kind {
        "flowchart" | "graph" => {
            let direction = match words.next().map(|d| d.trim_end_matches(';')) {
                None | Some("TD" | "TB") => Direction::TopDown,
                Some("BT") => Direction::BottomUp,
                Some("LR") => Direction::LeftRight,
                Some("RL") => Direction::RightLeft,
                Some(d) => return Err(err(n, format!("'{d}' is not a direction: TD, TB, BT, LR or RL"))),
            };
            flowchart(direction, &ls[1..]).map(Diagram::Flowchart)
        }
        "sequenceDiagram" => sequence(&ls[1..]).map(Diagram::Sequence),
        other => Ok(Diagram::Other(other.to_string())),
    }
}

fn re(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).expect("a valid pattern"))
}

/// The statements of a flowchart line (split at `;` outside brackets and quotes).
fn statements(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut quoted, mut start) = (0i32, false, 0);
    for (i, c) in line.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '[' | '(' | '{' if !quoted => depth += 1,
            ']' | ')' | '}' if !quoted => depth -= 1,
            ';' if !quoted && depth <= 0 => {
                out.push(line[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(line[start..].trim());
    out.into_iter().filter(|s| !s.is_empty()).collect()
}

const IGNORED: &[&str] = &["subgraph", "end", "classDef", "class", "style", "linkStyle", "click", "direction"];

fn flowchart(direction: Direction, ls: &[(usize, &str)]) -> Result<Flowchart, ParseError> {
    let mut f = Flowchart { direction, nodes: Vec::new(), edges: Vec::new() };
    let mut index: HashMap<String, usize> = HashMap::new();
    for &(n, line) in ls {
        for st in statements(line) {
            let first = st.split_whitespace().next().unwrap_or_default();
            if IGNORED.contains(&first) {
                continue;
            }
            chain(st, n, &mut f, &mut index)?;
        }
    }
    Ok(f)
}

/// One statement: node groups joined by edges (`a & b --> c -->|x| d`).
fn chain(st: &str, n: usize, f: &mut Flowchart, index: &mut HashMap<String, usize>) -> Result<(), ParseError> {
    let mut rest = st;
    // The previous group and the edge read after it.
    let mut pending: Option<(Vec<usize>, Edge)> = None;
    loop {
        let mut group = Vec::new();
        loop {
            let (node, after) = node(rest.trim_start(), n)?;
            let i = match index.get(&node.id) {
                Some(&i) => {
                    if node.label != node.id || node.shape != Shape::Rect {
                        f.nodes[i].label = node.label;
                        f.nodes[i].shape = node.shape;
                    }
                    i
                }
                None => {
                    index.insert(node.id.clone(), f.nodes.len());
                    f.nodes.push(node);
                    f.nodes.len() - 1
                }
            };
            group.push(i);
            rest = after.trim_start();
            match rest.strip_prefix('&') {
                Some(r) => rest = r,
                None => break,
            }
        }
        if let Some((from, e)) = pending.take() {
            for &a in &from {
                for &b in &group {
                    f.edges.push(Edge { from: a, to: b, ..e.clone() });
                }
            }
        }
        if rest.is_empty() {
            return Ok(());
        }
        let (e, after) = edge(rest, n)?;
        pending = Some((group, e));
        rest = after;
    }
}

/// A node reference at the start of `s`, and the rest.
fn node(s: &str, n: usize) -> Result<(Node, &str), ParseError> {
    let id_len = s.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(s.len());
    if id_len == 0 {
        let shown: String = s.chars().take(30).collect();
        return Err(err(n, format!("expected a node id (letters, digits, _) at '{shown}'")));
    }
    let id = &s[..id_len];
    let rest = &s[id_len..];
    const SHAPES: &[(&str, &str, Shape)] = &[
        ("[[", "]]", Shape::Subroutine),
        ("[(", ")]", Shape::Cylinder),
        ("([", "])", Shape::Stadium),
        ("((", "))", Shape::Circle),
        ("{{", "}}", Shape::Hexagon),
        ("[", "]", Shape::Rect),
        ("(", ")", Shape::Round),
        ("{", "}", Shape::Diamond),
        (">", "]", Shape::Flag),
    ];
    for &(open, close, shape) in SHAPES {
        let Some(body) = rest.strip_prefix(open) else { continue };
        // `>` opens a flag only when not an arrow's head (`A-->B` never reaches here).
        let (label, after) = if let Some(q) = body.strip_prefix('"') {
            let end = q.find('"').ok_or_else(|| err(n, format!("node '{id}': a quote that is never closed")))?;
            let after = q[end + 1..]
                .strip_prefix(close)
                .ok_or_else(|| err(n, format!("node '{id}': expected '{close}' after its quoted text")))?;
            (q[..end].to_string(), after)
        } else {
            let end = body
                .find(close)
                .ok_or_else(|| err(n, format!("node '{id}': '{open}' is never closed by '{close}'")))?;
            (body[..end].trim().to_string(), &body[end + close.len()..])
        };
        return Ok((Node { id: id.to_string(), label, shape }, after));
    }
    Ok((Node { id: id.to_string(), label: id.to_string(), shape: Shape::Rect }, rest))
}

/// An edge at the start of `s` (after spaces), and the rest.
fn edge(s: &str, n: usize) -> Result<(Edge, &str), ParseError> {
    static TEXT_OPEN: OnceLock<Regex> = OnceLock::new();
    static TEXT_CLOSE: OnceLock<Regex> = OnceLock::new();
    static ARROW: OnceLock<Regex> = OnceLock::new();
    static PIPE: OnceLock<Regex> = OnceLock::new();
    let s = s.trim_start();
    let style = |body: &str| {
        if body.contains('.') {
            Stroke::Dotted
        } else if body.contains('=') {
            Stroke::Thick
        } else {
            Stroke::Solid
        }
    };
    let make = |both: bool, body: &str, head: &str, label: Option<String>| Edge {
        from: 0,
        to: 0,
        label,
        stroke: style(body),
        head: !head.is_empty(),
        both: both && !head.is_empty(),
    };
    // `-- text -->`, `== text ==>`, `-. text .->`.
    if let Some(m) = re(&TEXT_OPEN, r"^(<?)(--|==|-\.)\s").captures(s) {
        let after = &s[m.get(0).expect("whole").end()..];
        if let Some(c) = re(&TEXT_CLOSE, r"\s(-{2,}|={2,}|\.-+)([>ox]?)").captures(after) {
            let whole = c.get(0).expect("whole");
            let label = after[..whole.start()].trim().to_string();
            let head = c.get(2).map_or("", |h| h.as_str());
            return Ok((make(!m[1].is_empty(), &c[1], head, Some(label)), &after[whole.end()..]));
        }
    }
    let Some(m) = re(&ARROW, r"^(<?)(-{2,}|={2,}|-\.+-)([>ox]?)").captures(s) else {
        let shown: String = s.chars().take(30).collect();
        return Err(err(
            n,
            format!("expected an edge (-->, ---, -.->, ==>, -->|label|, -- label -->) or the end of the statement at '{shown}'"),
        ));
    };
    let body = m[2].to_string();
    // `--` alone draws nothing: a link is at least `---` or has a head.
    if m[3].is_empty() && body.len() < 3 && !body.contains('.') {
        let shown: String = s.chars().take(30).collect();
        return Err(err(n, format!("'{}' is not an edge at '{shown}': write -->, --- or -- label -->", &m[0])));
    }
    let mut rest = &s[m.get(0).expect("whole").end()..];
    let mut label = None;
    if let Some(p) = re(&PIPE, r"^\s*\|([^|]*)\|").captures(rest) {
        label = Some(p[1].trim().trim_matches('"').to_string());
        rest = &rest[p.get(0).expect("whole").end()..];
    }
    Ok((make(!m[1].is_empty(), &body, &m[3], label), rest))
}

fn sequence(ls: &[(usize, &str)]) -> Result<Sequence, ParseError> {
    static PARTICIPANT: OnceLock<Regex> = OnceLock::new();
    static MESSAGE: OnceLock<Regex> = OnceLock::new();
    static NOTE: OnceLock<Regex> = OnceLock::new();
    let mut s = Sequence { participants: Vec::new(), items: Vec::new() };
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut who = |s: &mut Sequence, id: &str, label: Option<&str>| -> usize {
        match index.get(id) {
            Some(&i) => {
                if let Some(l) = label {
                    s.participants[i].1 = l.to_string();
                }
                i
            }
            None => {
                index.insert(id.to_string(), s.participants.len());
                s.participants.push((id.to_string(), label.unwrap_or(id).to_string()));
                s.participants.len() - 1
            }
        }
    };
    let mut open = 0usize;
    for &(n, line) in ls {
        let first = line.split_whitespace().next().unwrap_or_default();
        if let Some(c) = re(&PARTICIPANT, r"^(participant|actor)\s+([^\s]+?)(?:\s+as\s+(.+))?$").captures(line) {
            who(&mut s, &c[2], c.get(3).map(|m| m.as_str().trim()));
            continue;
        }
        if let Some(c) =
            re(&MESSAGE, r"^([\w.@]+)\s*(-->>|->>|-->|->|--x|-x|--\)|-\))\s*[+-]?\s*([\w.@]+)\s*(?::\s*(.*))?$")
                .captures(line)
        {
            let from = who(&mut s, &c[1], None);
            let to = who(&mut s, &c[3], None);
            let arrow = &c[2];
            let head = if arrow.ends_with(">>") {
                Head::Filled
            } else if arrow.ends_with('x') {
                Head::Cross
            } else if arrow.ends_with(')') {
                Head::Open
            } else {
                Head::None
            };
            let text = c.get(4).map_or("", |m| m.as_str()).trim().to_string();
            s.items.push(SeqItem::Message { from, to, text, dashed: arrow.starts_with("--"), head });
            continue;
        }
        if let Some(c) = re(&NOTE, r"^(?i:note)\s+(left of|right of|over)\s+([\w.@]+)(?:\s*,\s*([\w.@]+))?\s*:\s*(.*)$")
            .captures(line)
        {
            let a = who(&mut s, &c[2], None);
            let b = c.get(3).map_or(a, |m| who(&mut s, m.as_str(), None));
            let (from, to) = match &c[1] {
                "left of" => (a, a),
                "right of" => (a, a),
                _ => (a.min(b), a.max(b)),
            };
            s.items.push(SeqItem::Note { from, to, text: c[4].trim().to_string() });
            continue;
        }
        let label = line[first.len()..].trim().to_string();
        match first {
            "loop" | "alt" | "opt" | "par" | "critical" | "break" | "rect" | "box" => {
                open += 1;
                s.items.push(SeqItem::Open { kind: first.to_string(), label });
            }
            "else" | "and" | "option" => {
                if open == 0 {
                    return Err(err(n, format!("'{first}' outside an alt, par or critical frame")));
                }
                s.items.push(SeqItem::Section { label });
            }
            "end" => {
                if open == 0 {
                    return Err(err(n, "'end' closes no frame (loop, alt, opt, par, critical, break, rect, box)"));
                }
                open -= 1;
                s.items.push(SeqItem::Close);
            }
            "activate" | "deactivate" | "autonumber" | "title" | "link" | "links" | "create" | "destroy" => {}
            _ => {
                let shown: String = line.chars().take(40).collect();
                return Err(err(
                    n,
                    format!("cannot read '{shown}': expected a participant, a message (A->>B: text), a note, or loop/alt/opt … end"),
                ));
            }
        }
    }
    if open > 0 {
        return Err(err(ls.last().map_or(1, |l| l.0), format!("{open} frame(s) opened and never closed with 'end'")));
    }
    Ok(s)
}

/// The width a label takes, roughly (13px sans-serif).
fn text_width(s: &str) -> f64 {
    s.chars()
        .map(|c| {
            if c.is_ascii_uppercase() || c == 'm' || c == 'w' {
                9.0
            } else if c == ' ' {
                4.0
            } else {
                7.2
            }
        })
        .sum()
}

/// Draws `text` into `out`: an SVG for a flowchart or a sequence diagram, else the source
/// with a note.
pub fn render(text: &str, out: &mut String) {
    let id = &blake3::hash(text.as_bytes()).to_hex()[..10];
    match parse(text) {
        Ok(Diagram::Flowchart(f)) => draw_flowchart(&f, id, out),
        Ok(Diagram::Sequence(s)) => draw_sequence(&s, id, out),
        Ok(Diagram::Other(kind)) => source(text, &format!("mermaid '{kind}' diagrams are not drawn here"), out),
        Err(e) => source(text, &e.to_string(), out),
    }
}

fn source(text: &str, why: &str, out: &mut String) {
    out.push_str("<p class=\"note\">");
    escape_into(out, why);
    out.push_str(": shown as source.</p><pre class=\"mermaid-source\"><code>");
    escape_into(out, text);
    out.push_str("</code></pre>");
}

fn defs(id: &str, out: &mut String) {
    let _ = write!(
        out,
        "<defs><marker id=\"a-{id}\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"8\" markerHeight=\"8\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#1f2328\"/></marker>\
         <marker id=\"o-{id}\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"8\" markerHeight=\"8\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10\" fill=\"none\" stroke=\"#1f2328\"/></marker>\
         <marker id=\"x-{id}\" viewBox=\"0 0 10 10\" refX=\"5\" refY=\"5\" markerWidth=\"9\" markerHeight=\"9\" orient=\"auto\"><path d=\"M1,1 L9,9 M9,1 L1,9\" stroke=\"#1f2328\" stroke-width=\"1.5\"/></marker></defs>"
    );
}

struct Placed {
    x: f64,
    y: f64,
    w: f64,
    h: f64,
}

/// Layers (longest path over the edges, cycles broken) and the order in each layer.
fn layers(f: &Flowchart) -> Vec<Vec<usize>> {
    let n = f.nodes.len();
    let mut out_edges: Vec<Vec<usize>> = vec![Vec::new(); n];
    for e in &f.edges {
        if e.from != e.to {
            out_edges[e.from].push(e.to);
        }
    }
    // Reverse the edges a depth-first walk finds going back to its path.
    let mut state = vec![0u8; n];
    let mut dag: Vec<Vec<usize>> = vec![Vec::new(); n];
    for s in 0..n {
        if state[s] != 0 {
            continue;
        }
        let mut stack = vec![(s, 0usize)];
        state[s] = 1;
        while let Some(&mut (v, ref mut k)) = stack.last_mut() {
            if let Some(&w) = out_edges[v].get(*k) {
                *k += 1;
                match state[w] {
                    0 => {
                        dag[v].push(w);
                        state[w] = 1;
                        stack.push((w, 0));
                    }
                    1 => dag[w].push(v),
                    _ => dag[v].push(w),
                }
            } else {
                state[v] = 2;
                stack.pop();
            }
        }
    }
    // Longest path from the sources (Kahn's order).
    let mut indeg = vec![0usize; n];
    for vs in &dag {
        for &w in vs {
            indeg[w] += 1;
        }
    }
    let mut queue: std::collections::VecDeque<usize> = (0..n).filter(|&v| indeg[v] == 0).collect();
    let mut layer = vec![0usize; n];
    while let Some(v) = queue.pop_front() {
        for &w in &dag[v] {
            layer[w] = layer[w].max(layer[v] + 1);
            indeg[w] -= 1;
            if indeg[w] == 0 {
                queue.push_back(w);
            }
        }
    }
    let depth = layer.iter().copied().max().map_or(0, |m| m + 1);
    let mut ls: Vec<Vec<usize>> = vec![Vec::new(); depth];
    for v in 0..n {
        ls[layer[v]].push(v);
    }
    // Barycenter sweeps, down then up.
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (v, ws) in dag.iter().enumerate() {
        for &w in ws {
            preds[w].push(v);
        }
    }
    let mut pos = vec![0f64; n];
    let set = |ls: &Vec<Vec<usize>>, pos: &mut Vec<f64>| {
        for l in ls {
            for (i, &v) in l.iter().enumerate() {
                pos[v] = i as f64;
            }
        }
    };
    set(&ls, &mut pos);
    for round in 0..4 {
        let order: Vec<usize> =
            if round % 2 == 0 { (1..ls.len()).collect() } else { (0..ls.len().saturating_sub(1)).rev().collect() };
        for li in order {
            let near = |v: usize| -> Option<f64> {
                let ns = if round % 2 == 0 { &preds[v] } else { &dag[v] };
                (!ns.is_empty()).then(|| ns.iter().map(|&u| pos[u]).sum::<f64>() / ns.len() as f64)
            };
            let mut keyed: Vec<(f64, usize)> = ls[li].iter().map(|&v| (near(v).unwrap_or(pos[v]), v)).collect();
            keyed.sort_by(|a, b| a.0.total_cmp(&b.0));
            ls[li] = keyed.into_iter().map(|(_, v)| v).collect();
            for (i, &v) in ls[li].iter().enumerate() {
                pos[v] = i as f64;
            }
        }
    }
    ls
}

fn draw_flowchart(f: &Flowchart, id: &str, out: &mut String) {
    let ls = layers(f);
    let size = |n: &Node| -> (f64, f64) {
        let w = (text_width(&n.label) + 28.0).max(70.0);
        match n.shape {
            Shape::Diamond => (w + 24.0, 60.0),
            Shape::Circle => (w.max(60.0), w.clamp(60.0, 90.0)),
            _ => (w, 42.0),
        }
    };
    let sizes: Vec<(f64, f64)> = f.nodes.iter().map(size).collect();
    let mut layer_of = vec![0usize; f.nodes.len()];
    for (li, l) in ls.iter().enumerate() {
        for &v in l {
            layer_of[v] = li;
        }
    }
    let vertical = matches!(f.direction, Direction::TopDown | Direction::BottomUp);
    let (gap_in, gap_across) = if vertical { (36.0, 64.0) } else { (26.0, 80.0) };
    let mut placed: Vec<Placed> = (0..f.nodes.len()).map(|_| Placed { x: 0.0, y: 0.0, w: 0.0, h: 0.0 }).collect();
    // Along a layer: the nodes side by side; across layers: each layer as deep as its largest.
    let extent = |v: usize| if vertical { sizes[v].0 } else { sizes[v].1 };
    let depth = |v: usize| if vertical { sizes[v].1 } else { sizes[v].0 };
    let widths: Vec<f64> = ls
        .iter()
        .map(|l| l.iter().map(|&v| extent(v)).sum::<f64>() + gap_in * l.len().saturating_sub(1) as f64)
        .collect();
    let widest = widths.iter().copied().fold(0.0, f64::max);
    let mut across = 20.0;
    for (li, l) in ls.iter().enumerate() {
        let d = l.iter().map(|&v| depth(v)).fold(0.0, f64::max);
        let mut along = 20.0 + (widest - widths[li]) / 2.0;
        for &v in l {
            let (w, h) = sizes[v];
            let (a, c) = (along + extent(v) / 2.0, across + d / 2.0);
            placed[v] = if vertical { Placed { x: a, y: c, w, h } } else { Placed { x: c, y: a, w, h } };
            along += extent(v) + gap_in;
        }
        across += d + gap_across;
    }
    let total_across = across - gap_across + 20.0;
    let total_along = widest + 40.0;
    let (width, height) = if vertical { (total_along, total_across) } else { (total_across, total_along) };
    for p in &mut placed {
        match f.direction {
            Direction::BottomUp => p.y = height - p.y,
            Direction::RightLeft => p.x = width - p.x,
            _ => {}
        }
    }
    let _ = write!(
        out,
        "<svg class=\"mermaid flowchart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width:.0} {height:.0}\" width=\"{width:.0}\" height=\"{height:.0}\" role=\"img\" font-size=\"13\">"
    );
    defs(id, out);
    // Edges first, under the nodes.
    out.push_str("<g class=\"edges\">");
    for e in &f.edges {
        let (a, b) = (&placed[e.from], &placed[e.to]);
        let dash = match e.stroke {
            Stroke::Dotted => " stroke-dasharray=\"4 4\"",
            _ => "",
        };
        let width = if e.stroke == Stroke::Thick { 3.0 } else { 1.5 };
        let end = if e.head { format!(" marker-end=\"url(#a-{id})\"") } else { String::new() };
        let start = if e.both { format!(" marker-start=\"url(#a-{id})\"") } else { String::new() };
        let (mx, my);
        if e.from == e.to {
            let (x, y) = (a.x + a.w / 2.0, a.y);
            let _ = write!(
                out,
                "<path class=\"edge\" d=\"M{x:.1},{:.1} C{:.1},{:.1} {:.1},{:.1} {x:.1},{:.1}\" fill=\"none\" stroke=\"#1f2328\" stroke-width=\"{width}\"{dash}{end}/>",
                y - 8.0,
                x + 40.0,
                y - 30.0,
                x + 40.0,
                y + 30.0,
                y + 8.0
            );
            (mx, my) = (x + 40.0, y);
        } else if layer_of[e.to] <= layer_of[e.from] {
            // Against the layers (a cycle's way back, or within a layer): bent aside, so it
            // does not run over an edge going the other way.
            let (dx, dy) = (b.x - a.x, b.y - a.y);
            let len = (dx * dx + dy * dy).sqrt().max(1.0);
            let (cx, cy) = ((a.x + b.x) / 2.0 - dy / len * 46.0, (a.y + b.y) / 2.0 + dx / len * 46.0);
            let (x1, y1) = clip(a, cx, cy);
            let (x2, y2) = clip(b, cx, cy);
            let _ = write!(
                out,
                "<path class=\"edge\" d=\"M{x1:.1},{y1:.1} Q{cx:.1},{cy:.1} {x2:.1},{y2:.1}\" fill=\"none\" stroke=\"#1f2328\" stroke-width=\"{width}\"{dash}{start}{end}/>"
            );
            (mx, my) = ((x1 + 2.0 * cx + x2) / 4.0, (y1 + 2.0 * cy + y2) / 4.0);
        } else {
            let (x1, y1) = clip(a, b.x, b.y);
            let (x2, y2) = clip(b, a.x, a.y);
            let _ = write!(
                out,
                "<line class=\"edge\" x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\" stroke=\"#1f2328\" stroke-width=\"{width}\"{dash}{start}{end}/>"
            );
            (mx, my) = ((x1 + x2) / 2.0, (y1 + y2) / 2.0);
        }
        if let Some(l) = e.label.as_deref().filter(|l| !l.is_empty()) {
            let w = text_width(l) + 10.0;
            let _ = write!(
                out,
                "<g class=\"edge-label\"><rect x=\"{:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"18\" fill=\"#ffffff\" stroke=\"#d1d9e0\"/><text x=\"{mx:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#59636e\">{}</text></g>",
                mx - w / 2.0,
                my - 9.0,
                my + 4.0,
                escape(l)
            );
        }
    }
    out.push_str("</g><g class=\"nodes\">");
    for (n, p) in f.nodes.iter().zip(&placed) {
        let (x0, y0) = (p.x - p.w / 2.0, p.y - p.h / 2.0);
        let _ = write!(out, "<g class=\"node\" data-id=\"{}\">", escape(&n.id));
        let style = "fill=\"#eef4ff\" stroke=\"#0969da\" stroke-width=\"1.5\"";
        match n.shape {
            Shape::Rect | Shape::Flag => {
                let _ = write!(
                    out,
                    "<rect x=\"{x0:.1}\" y=\"{y0:.1}\" width=\"{:.1}\" height=\"{:.1}\" {style}/>",
                    p.w, p.h
                );
            }
            Shape::Round | Shape::Stadium | Shape::Cylinder => {
                let r = if n.shape == Shape::Round { 8.0 } else { p.h / 2.0 };
                let _ = write!(
                    out,
                    "<rect x=\"{x0:.1}\" y=\"{y0:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"{r:.1}\" {style}/>",
                    p.w, p.h
                );
            }
            Shape::Subroutine => {
                let _ = write!(
                    out,
                    "<rect x=\"{x0:.1}\" y=\"{y0:.1}\" width=\"{:.1}\" height=\"{:.1}\" {style}/><line x1=\"{:.1}\" y1=\"{y0:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#0969da\"/><line x1=\"{:.1}\" y1=\"{y0:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#0969da\"/>",
                    p.w,
                    p.h,
                    x0 + 7.0,
                    x0 + 7.0,
                    y0 + p.h,
                    x0 + p.w - 7.0,
                    x0 + p.w - 7.0,
                    y0 + p.h
                );
            }
            Shape::Circle => {
                let _ = write!(
                    out,
                    "<ellipse cx=\"{:.1}\" cy=\"{:.1}\" rx=\"{:.1}\" ry=\"{:.1}\" {style}/>",
                    p.x,
                    p.y,
                    p.w / 2.0,
                    p.h / 2.0
                );
            }
            Shape::Diamond => {
                let _ = write!(
                    out,
                    "<polygon points=\"{:.1},{y0:.1} {:.1},{:.1} {:.1},{:.1} {x0:.1},{:.1}\" {style}/>",
                    p.x,
                    x0 + p.w,
                    p.y,
                    p.x,
                    y0 + p.h,
                    p.y
                );
            }
            Shape::Hexagon => {
                let k = 14.0;
                let _ = write!(
                    out,
                    "<polygon points=\"{:.1},{y0:.1} {:.1},{y0:.1} {:.1},{:.1} {:.1},{:.1} {:.1},{:.1} {x0:.1},{:.1}\" {style}/>",
                    x0 + k,
                    x0 + p.w - k,
                    x0 + p.w,
                    p.y,
                    x0 + p.w - k,
                    y0 + p.h,
                    x0 + k,
                    y0 + p.h,
                    p.y
                );
            }
        }
        let _ = write!(
            out,
            "<text class=\"node-label\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#1f2328\">{}</text></g>",
            p.x,
            p.y + 4.5,
            escape(&n.label)
        );
    }
    out.push_str("</g></svg>");
}

/// Where the segment from `p`'s centre towards (`tx`, `ty`) leaves its box.
fn clip(p: &Placed, tx: f64, ty: f64) -> (f64, f64) {
    let (dx, dy) = (tx - p.x, ty - p.y);
    if dx == 0.0 && dy == 0.0 {
        return (p.x, p.y);
    }
    let sx = if dx == 0.0 { f64::INFINITY } else { (p.w / 2.0) / dx.abs() };
    let sy = if dy == 0.0 { f64::INFINITY } else { (p.h / 2.0) / dy.abs() };
    let s = sx.min(sy);
    (p.x + dx * s, p.y + dy * s)
}

/// A sequence diagram's open frame: kind, label, top y, and its sections (y, label).
type Frame = (String, String, f64, Vec<(f64, String)>);

fn draw_sequence(s: &Sequence, id: &str, out: &mut String) {
    let col: Vec<f64> = s.participants.iter().map(|(_, l)| (text_width(l) + 40.0).max(120.0)).collect();
    let mut xs = Vec::with_capacity(col.len());
    let mut x = 20.0;
    for (i, w) in col.iter().enumerate() {
        // Wide enough for the longest message between neighbours.
        let longest = s
            .items
            .iter()
            .filter_map(|it| match it {
                SeqItem::Message { from, to, text, .. } if from.min(to) + 1 == *from.max(to) && *from.max(to) == i => {
                    Some(text_width(text) + 30.0)
                }
                _ => None,
            })
            .fold(0.0, f64::max);
        if i > 0 {
            let needed = (col[i - 1] / 2.0 + w / 2.0 + 30.0).max(longest);
            x = xs[i - 1] + needed;
        } else {
            x += w / 2.0;
        }
        xs.push(x);
    }
    let width = xs.last().copied().unwrap_or(60.0) + col.last().copied().unwrap_or(120.0) / 2.0 + 60.0;
    let box_h = 36.0;
    let top = 10.0;
    let mut y = top + box_h + 30.0;
    // Rows first (their y), then draw: frames need their extent.
    let mut body = String::new();
    let mut frames: Vec<Frame> = Vec::new();
    for it in &s.items {
        match it {
            SeqItem::Message { from, to, text, dashed, head } => {
                let dash = if *dashed { " stroke-dasharray=\"5 4\"" } else { "" };
                let marker = match head {
                    Head::Filled => format!(" marker-end=\"url(#a-{id})\""),
                    Head::Open => format!(" marker-end=\"url(#o-{id})\""),
                    Head::Cross => format!(" marker-end=\"url(#x-{id})\""),
                    Head::None => String::new(),
                };
                if from == to {
                    let x0 = xs[*from];
                    let _ = write!(
                        body,
                        "<g class=\"message\"><text x=\"{:.1}\" y=\"{:.1}\" fill=\"#1f2328\">{}</text><path d=\"M{x0:.1},{y:.1} h40 v22 h-38\" fill=\"none\" stroke=\"#1f2328\" stroke-width=\"1.5\"{dash}{marker}/></g>",
                        x0 + 8.0,
                        y - 6.0,
                        escape(text)
                    );
                    y += 58.0;
                } else {
                    let (x1, x2) = (xs[*from], xs[*to]);
                    let _ = write!(
                        body,
                        "<g class=\"message\"><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#1f2328\">{}</text><line x1=\"{x1:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#1f2328\" stroke-width=\"1.5\"{dash}{marker}/></g>",
                        (x1 + x2) / 2.0,
                        y - 7.0,
                        escape(text),
                        if x2 > x1 { x2 - 2.0 } else { x2 + 2.0 }
                    );
                    y += 42.0;
                }
            }
            SeqItem::Note { from, to, text } => {
                let (a, b) = (xs[*from], xs[*to]);
                let w = (text_width(text) + 20.0).max(b - a + 80.0);
                let cx = (a + b) / 2.0;
                let _ = write!(
                    body,
                    "<g class=\"note\"><rect x=\"{:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"28\" fill=\"#fff8c5\" stroke=\"#d4a72c\"/><text x=\"{cx:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#1f2328\">{}</text></g>",
                    cx - w / 2.0,
                    y - 18.0,
                    y,
                    escape(text)
                );
                y += 40.0;
            }
            SeqItem::Open { kind, label } => {
                frames.push((kind.clone(), label.clone(), y - 22.0, Vec::new()));
                y += 26.0;
            }
            SeqItem::Section { label } => {
                if let Some(f) = frames.last_mut() {
                    f.3.push((y - 18.0, label.clone()));
                }
                y += 26.0;
            }
            SeqItem::Close => {
                if let Some((kind, label, y0, sections)) = frames.pop() {
                    let (fx, fw) = (8.0, width - 16.0);
                    let _ = write!(
                        body,
                        "<g class=\"frame\"><rect x=\"{fx}\" y=\"{y0:.1}\" width=\"{fw:.1}\" height=\"{:.1}\" fill=\"none\" stroke=\"#8c959f\"/><text x=\"{:.1}\" y=\"{:.1}\" font-weight=\"600\" fill=\"#59636e\">{} {}</text>",
                        y - y0 - 14.0,
                        fx + 6.0,
                        y0 + 15.0,
                        escape(&kind),
                        escape(&label)
                    );
                    for (sy, l) in sections {
                        let _ = write!(
                            body,
                            "<line x1=\"{fx}\" x2=\"{:.1}\" y1=\"{sy:.1}\" y2=\"{sy:.1}\" stroke=\"#8c959f\" stroke-dasharray=\"4 3\"/><text x=\"{:.1}\" y=\"{:.1}\" fill=\"#59636e\">{}</text>",
                            fx + fw,
                            fx + 6.0,
                            sy + 15.0,
                            escape(&l)
                        );
                    }
                    body.push_str("</g>");
                }
                y += 10.0;
            }
        }
    }
    let bottom = y + 4.0;
    let height = bottom + box_h + 12.0;
    let _ = write!(
        out,
        "<svg class=\"mermaid sequence\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width:.0} {height:.0}\" width=\"{width:.0}\" height=\"{height:.0}\" role=\"img\" font-size=\"13\">"
    );
    defs(id, out);
    for (i, (pid, label)) in s.participants.iter().enumerate() {
        let (cx, w) = (xs[i], col[i]);
        let _ = write!(
            out,
            "<g class=\"participant\" data-id=\"{}\"><line x1=\"{cx:.1}\" x2=\"{cx:.1}\" y1=\"{:.1}\" y2=\"{bottom:.1}\" stroke=\"#8c959f\" stroke-dasharray=\"3 3\"/>",
            escape(pid),
            top + box_h
        );
        for by in [top, bottom] {
            let _ = write!(
                out,
                "<rect x=\"{:.1}\" y=\"{by:.1}\" width=\"{w:.1}\" height=\"{box_h}\" rx=\"4\" fill=\"#eef4ff\" stroke=\"#0969da\"/><text class=\"participant-label\" x=\"{cx:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#1f2328\">{}</text>",
                cx - w / 2.0,
                by + 22.5,
                escape(label)
            );
        }
        out.push_str("</g>");
    }
    out.push_str(&body);
    out.push_str("</svg>");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(text: &str) -> Flowchart {
        match parse(text).unwrap() {
            Diagram::Flowchart(f) => f,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn flowcharts_read_nodes_shapes_chains_and_labels() {
        let f = flow("flowchart LR\n  A[Start here] -->|yes| B{Ok?}\n  B -- no --> C((Stop)) & D\n  C -.-> A; D ==> E[\"Quoted [text]\"]\n%% a comment\nclassDef x fill:#fff");
        assert_eq!(f.direction, Direction::LeftRight);
        let labels: Vec<&str> = f.nodes.iter().map(|n| n.label.as_str()).collect();
        assert_eq!(labels, ["Start here", "Ok?", "Stop", "D", "Quoted [text]"]);
        assert_eq!(f.nodes[1].shape, Shape::Diamond);
        let edges: Vec<(usize, usize, Option<&str>, Stroke)> =
            f.edges.iter().map(|e| (e.from, e.to, e.label.as_deref(), e.stroke)).collect();
        assert_eq!(
            edges,
            [
                (0, 1, Some("yes"), Stroke::Solid),
                (1, 2, Some("no"), Stroke::Solid),
                (1, 3, Some("no"), Stroke::Solid),
                (2, 0, None, Stroke::Dotted),
                (3, 4, None, Stroke::Thick)
            ]
        );
        let l = layers(&f);
        assert_eq!(l[0], [0], "the cycle C -> A is broken: A starts");
    }

    #[test]
    fn errors_name_the_line() {
        let e = parse("graph TD\nA --> B\nA -> B").unwrap_err();
        assert_eq!(e.line, 3, "{e}");
        assert!(parse("graph XY\nA-->B").unwrap_err().message.contains("direction"));
        let e = parse("sequenceDiagram\nAlice->>Bob: hi\nloop every minute\nBob-->>Alice: ok").unwrap_err();
        assert!(e.message.contains("never closed"), "{e}");
        assert_eq!(parse("gantt\ntitle x").unwrap(), Diagram::Other("gantt".into()));
    }

    #[test]
    fn sequences_read_participants_messages_notes_and_frames() {
        let Diagram::Sequence(s) = parse(
            "sequenceDiagram\nparticipant A as Alice\nactor B\nA->>B: Hello\nB-->>A: Hi\nNote over A,B: greeting\nloop Retry\nA-)B: ping\nend\nA->>C: new",
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(s.participants, [("A".into(), "Alice".into()), ("B".into(), "B".into()), ("C".into(), "C".into())]);
        assert_eq!(s.items.len(), 7);
        assert!(matches!(&s.items[1], SeqItem::Message { dashed: true, head: Head::Filled, .. }));
    }
}
