//! `graph.map`: the call graph laid out to be walked in place through a memory map, so a
//! process that only asks (`cc-server callers X`, the MCP server opening a repository)
//! reads the few pages its question touches instead of loading the graph.
//!
//! Written by [`CallGraph::save`] beside `graph.bin` (which keeps what an update needs:
//! each file's resolutions); like every index file it is replaced by a rename, never
//! written in place, so a map stays valid while a re-index replaces the file.
//!
//! Layout, little-endian, no alignment assumed (every field is read with `from_le_bytes`):
//!
//! ```text
//! header (64 bytes)   magic "CCGMAP\0\0", format version, block size, records generation,
//!                     node / symbol / edge counts, section count, body length, the CRC-32 of
//!                     the tables, the CRC-32 of the header
//! section table       (offset, length) of each section in the body, u64 each
//! block CRCs          one CRC-32 per block of the body
//! body                the sections below
//! ```
//!
//! | section | record | what |
//! |---|---|---|
//! | strings | bytes | every name, qualified name, path and signature, UTF-8 |
//! | nodes | 64 bytes | tag (symbol, top level, external), kind, language, id, name, qualified name, path, signature (offset and length in strings), span |
//! | out index, in index | u32 × (nodes + 1) | where node n's outgoing edges / incoming edge numbers start |
//! | in edges | u32 | edge numbers grouped by target |
//! | edges | 24 bytes | source, target, confidence, sites (first, count), possible, rung, kind, candidates; grouped by source |
//! | sites | 12 bytes | path (a paths record), line, column |
//! | paths | 8 bytes | a site's file path (offset and length in strings) |
//! | by name, by qualified name | u32 | symbol positions sorted by that name, then position |
//! | by path | u32 | symbol positions (top levels left out) sorted by path, line, column, id |
//! | ids | 12 bytes | symbol id and position, sorted by id |
//!
//! The header and the tables are checked when the file is opened; each block of the body
//! against its CRC the first time a read touches it. Every offset read from the file is
//! checked against its section: a damaged file gives [`Error::Corrupt`], never a wrong
//! read outside it.

use std::borrow::Cow;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use cc_indexer::{Lang, Span, SymbolId, SymbolKind};
use petgraph::Direction;
use rustc_hash::FxHashMap as HashMap;

use crate::graph::{CallGraph, NodeRef, Site, SymbolInfo, GRAPH_FORMAT_VERSION, TOP_LEVEL_NAME};
use crate::resolve::{EdgeKind, Rung};
use crate::view::{within, EdgeMeta, GraphView};
use crate::{Error, Result};

/// The file's name in an index folder.
pub const MAP_FILE: &str = "graph.map";

const MAGIC: &[u8; 8] = b"CCGMAP\0\0";
const HEADER: usize = 64;
/// Checked as a unit: a query that touches a few records verifies a few blocks.
const BLOCK: usize = 16 << 10;

const NODE: usize = 64;
const EDGE: usize = 24;
const SITE: usize = 12;
const PATH: usize = 8;
const ID: usize = 12;

/// The body's sections, in the order they are written.
#[derive(Clone, Copy)]
enum Sec {
    Strings,
    Nodes,
    OutIndex,
    InIndex,
    InEdges,
    Edges,
    Sites,
    Paths,
    ByName,
    ByQualified,
    ByPath,
    Ids,
}
const SECTIONS: usize = 12;

const TAG_SYMBOL: u8 = 0;
const TAG_FILE: u8 = 1;
const TAG_EXTERNAL: u8 = 2;

const RUNGS: [Rung; 9] = [
    Rung::Receiver,
    Rung::Scope,
    Rung::SameFile,
    Rung::Import,
    Rung::Package,
    Rung::Global,
    Rung::Flow,
    Rung::Ambiguous,
    Rung::External,
];

fn code_of<T: PartialEq>(all: &[T], x: &T) -> u8 {
    all.iter().position(|y| y == x).expect("listed") as u8
}

/// The body, written through: a CRC per block as it goes, and where each section starts.
struct Body<W> {
    out: W,
    at: u64,
    crc: crc32fast::Hasher,
    in_block: usize,
    blocks: Vec<u32>,
    sections: Vec<(u64, u64)>,
}

impl<W: Write> Body<W> {
    fn put(&mut self, mut b: &[u8]) -> std::io::Result<()> {
        self.out.write_all(b)?;
        self.at += b.len() as u64;
        while !b.is_empty() {
            let n = (BLOCK - self.in_block).min(b.len());
            self.crc.update(&b[..n]);
            self.in_block += n;
            b = &b[n..];
            if self.in_block == BLOCK {
                self.blocks.push(std::mem::take(&mut self.crc).finalize());
                self.in_block = 0;
            }
        }
        Ok(())
    }

    fn u32(&mut self, v: u32) -> std::io::Result<()> {
        self.put(&v.to_le_bytes())
    }

    /// Starts the next section.
    fn section(&mut self) {
        if let Some(last) = self.sections.last_mut() {
            last.1 = self.at - last.0;
        }
        self.sections.push((self.at, 0));
    }

    fn finish(mut self) -> (W, u64, Vec<u32>, Vec<(u64, u64)>) {
        if let Some(last) = self.sections.last_mut() {
            last.1 = self.at - last.0;
        }
        if self.in_block > 0 {
            self.blocks.push(self.crc.finalize());
        }
        (self.out, self.at, self.blocks, self.sections)
    }
}

/// The strings section as it will be: each string once per place it is asked for (paths
/// once), held as references into the graph until written.
#[derive(Default)]
struct Strings<'a> {
    list: Vec<&'a str>,
    len: u64,
    paths: HashMap<&'a str, (u32, u32)>,
}

impl<'a> Strings<'a> {
    fn add(&mut self, s: &'a str) -> Result<(u32, u32)> {
        let at = u32::try_from(self.len).map_err(|_| Error::Corrupt("the graph's strings pass 4 GiB".into()))?;
        self.list.push(s);
        self.len += s.len() as u64;
        Ok((at, s.len() as u32))
    }

    fn path(&mut self, s: &'a str) -> Result<(u32, u32)> {
        if let Some(&r) = self.paths.get(s) {
            return Ok(r);
        }
        let r = self.add(s)?;
        self.paths.insert(s, r);
        Ok(r)
    }
}

fn put_ref(rec: &mut [u8], at: usize, (off, len): (u32, u32)) {
    rec[at..at + 4].copy_from_slice(&off.to_le_bytes());
    rec[at + 4..at + 8].copy_from_slice(&len.to_le_bytes());
}

/// Writes `g` as `graph.map` into `dir` (through a temporary file and a rename), stamped
/// with `records_generation`.
pub(crate) fn save(g: &CallGraph, dir: &Path, records_generation: u64) -> Result<()> {
    let path = dir.join(MAP_FILE);
    let tmp = dir.join("graph.map.tmp");
    let io = |e: std::io::Error| Error::Io { path: tmp.clone(), error: e };
    let written = (|| {
        let file = std::fs::File::create(&tmp).map_err(io)?;
        let mut w = std::io::BufWriter::with_capacity(1 << 16, file);
        // The header and tables are written last, over this room.
        let (graph, symbols) = (g.petgraph(), g.symbol_table());
        let nodes = graph.node_count();
        let edges = graph.edge_count();
        let room = HEADER + SECTIONS * 16 + 4 * prospective_blocks(g)?;
        w.write_all(&vec![0u8; room]).map_err(io)?;
        let mut body = Body {
            out: w,
            at: 0,
            crc: crc32fast::Hasher::new(),
            in_block: 0,
            blocks: Vec::new(),
            sections: Vec::new(),
        };
        let mut strings = Strings::default();
        let mut node_records = Vec::with_capacity(nodes);
        for n in graph.node_indices() {
            let mut rec = [0u8; NODE];
            let i = n.index();
            match (&graph[n], symbols.get(i)) {
                (NodeRef::External(x), _) => {
                    rec[0] = TAG_EXTERNAL;
                    put_ref(&mut rec, 16, strings.add(x)?);
                }
                (r, Some(s)) => {
                    rec[0] = if matches!(r, NodeRef::File(_)) { TAG_FILE } else { TAG_SYMBOL };
                    rec[1] = code_of(&SymbolKind::ALL, &s.kind);
                    rec[2] = s.lang as u8;
                    rec[8..16].copy_from_slice(&s.id.0.to_le_bytes());
                    put_ref(&mut rec, 16, strings.add(&s.name)?);
                    put_ref(&mut rec, 24, strings.add(&s.qualified_name)?);
                    put_ref(&mut rec, 32, strings.path(&s.path)?);
                    put_ref(&mut rec, 40, strings.add(&s.signature)?);
                    let sp = s.span;
                    for (k, v) in [sp.start_line, sp.start_col, sp.end_line, sp.end_col].into_iter().enumerate() {
                        rec[48 + 4 * k..52 + 4 * k].copy_from_slice(&v.to_le_bytes());
                    }
                }
                (r, None) => return Err(Error::Corrupt(format!("node {i} ({r:?}) is past the symbols"))),
            }
            node_records.push(rec);
        }
        // Site paths: one record per file.
        let mut path_index: HashMap<&str, u32> = HashMap::default();
        let mut path_records: Vec<(u32, u32)> = Vec::new();
        for e in graph.edge_references() {
            for s in &e.weight().sites {
                if !path_index.contains_key(&*s.path) {
                    path_index.insert(&s.path, path_records.len() as u32);
                    path_records.push(strings.path(&s.path)?);
                }
            }
        }
        body.section();
        for s in &strings.list {
            body.put(s.as_bytes()).map_err(io)?;
        }
        body.section();
        for rec in &node_records {
            body.put(rec).map_err(io)?;
        }
        drop(node_records);
        // Edges grouped by source (petgraph's order is by source already; not relied on).
        let mut by_source: Vec<u32> = (0..edges as u32).collect();
        by_source.sort_by_key(|&e| graph.raw_edges()[e as usize].source().index());
        let mut renumbered = vec![0u32; edges];
        for (new, &old) in by_source.iter().enumerate() {
            renumbered[old as usize] = new as u32;
        }
        let index = |body: &mut Body<_>, of: &dyn Fn(u32) -> usize| -> std::io::Result<()> {
            let mut counts = vec![0u32; nodes + 1];
            for e in 0..edges as u32 {
                counts[of(e) + 1] += 1;
            }
            let mut sum = 0;
            for c in &counts {
                sum += c;
                body.u32(sum)?;
            }
            Ok(())
        };
        body.section();
        index(&mut body, &|e| graph.raw_edges()[e as usize].source().index()).map_err(io)?;
        body.section();
        index(&mut body, &|e| graph.raw_edges()[e as usize].target().index()).map_err(io)?;
        body.section();
        let mut by_target: Vec<u32> = (0..edges as u32).collect();
        by_target.sort_by_key(|&e| (graph.raw_edges()[e as usize].target().index(), renumbered[e as usize]));
        for &e in &by_target {
            body.u32(renumbered[e as usize]).map_err(io)?;
        }
        drop((by_target, renumbered));
        body.section();
        let mut first_site = 0u32;
        for &e in &by_source {
            let raw = &graph.raw_edges()[e as usize];
            let d = &raw.weight;
            let mut rec = [0u8; EDGE];
            rec[0..4].copy_from_slice(&(raw.source().index() as u32).to_le_bytes());
            rec[4..8].copy_from_slice(&(raw.target().index() as u32).to_le_bytes());
            rec[8..12].copy_from_slice(&d.confidence.to_bits().to_le_bytes());
            rec[12..16].copy_from_slice(&first_site.to_le_bytes());
            rec[16..20].copy_from_slice(&(d.sites.len() as u32).to_le_bytes());
            rec[20] = d.ambiguous as u8;
            rec[21] = code_of(&RUNGS, &d.rung);
            rec[22] = code_of(&EdgeKind::ALL, &d.kind);
            rec[23] = d.candidates;
            first_site += d.sites.len() as u32;
            body.put(&rec).map_err(io)?;
        }
        body.section();
        for &e in &by_source {
            for s in &graph.raw_edges()[e as usize].weight.sites {
                body.u32(path_index[&*s.path]).map_err(io)?;
                body.u32(s.line).map_err(io)?;
                body.u32(s.column).map_err(io)?;
            }
        }
        drop(by_source);
        body.section();
        for &(off, len) in &path_records {
            body.u32(off).map_err(io)?;
            body.u32(len).map_err(io)?;
        }
        for order in [g.by_name_order(), g.by_qualified_order()] {
            body.section();
            for &p in order {
                body.u32(p).map_err(io)?;
            }
        }
        body.section();
        let mut by_path: Vec<u32> =
            (0..symbols.len() as u32).filter(|&p| symbols[p as usize].name != TOP_LEVEL_NAME).collect();
        by_path.sort_by(|&a, &b| crate::graph::by_place(&symbols[a as usize], &symbols[b as usize]));
        for p in by_path {
            body.u32(p).map_err(io)?;
        }
        body.section();
        let mut ids: Vec<(u64, u32)> = symbols.iter().enumerate().map(|(p, s)| (s.id.0, p as u32)).collect();
        ids.sort_unstable();
        ids.dedup_by_key(|x| x.0);
        for (id, p) in ids {
            body.put(&id.to_le_bytes()).map_err(io)?;
            body.u32(p).map_err(io)?;
        }
        let (mut w, body_len, blocks, sections) = body.finish();
        debug_assert_eq!(sections.len(), SECTIONS);
        if blocks.len() > prospective_blocks(g)? {
            return Err(Error::Corrupt("graph.map came out longer than planned".into()));
        }
        let mut tables = Vec::with_capacity(room - HEADER);
        for (off, len) in &sections {
            tables.extend_from_slice(&(off + room as u64).to_le_bytes());
            tables.extend_from_slice(&len.to_le_bytes());
        }
        for c in &blocks {
            tables.extend_from_slice(&c.to_le_bytes());
        }
        tables.resize(room - HEADER, 0);
        let mut header = [0u8; HEADER];
        header[0..8].copy_from_slice(MAGIC);
        header[8..12].copy_from_slice(&GRAPH_FORMAT_VERSION.to_le_bytes());
        header[12..16].copy_from_slice(&(BLOCK as u32).to_le_bytes());
        header[16..24].copy_from_slice(&records_generation.to_le_bytes());
        header[24..28].copy_from_slice(&(nodes as u32).to_le_bytes());
        header[28..32].copy_from_slice(&(symbols.len() as u32).to_le_bytes());
        header[32..36].copy_from_slice(&(edges as u32).to_le_bytes());
        header[36..40].copy_from_slice(&(SECTIONS as u32).to_le_bytes());
        header[40..48].copy_from_slice(&body_len.to_le_bytes());
        header[48..52].copy_from_slice(&crc32fast::hash(&tables).to_le_bytes());
        let crc = crc32fast::hash(&header[..52]);
        header[52..56].copy_from_slice(&crc.to_le_bytes());
        w.flush().map_err(io)?;
        let mut file = w.into_inner().map_err(|e| io(e.into_error()))?;
        use std::io::{Seek, SeekFrom};
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        file.write_all(&header).map_err(io)?;
        file.write_all(&tables).map_err(io)?;
        file.sync_data().map_err(io)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    std::fs::rename(&tmp, &path).map_err(|e| Error::Io { path, error: e })
}

/// The records generation of the `graph.map` in `dir` and its header's CRC-32, read from
/// its header alone (checked), when it is of this format.
pub(crate) fn header_of(dir: &Path) -> Option<(u64, u32)> {
    use std::io::Read;
    let mut header = [0u8; HEADER];
    std::fs::File::open(dir.join(MAP_FILE)).ok()?.read_exact(&mut header).ok()?;
    (&header[..8] == MAGIC
        && le32(&header, 8) == GRAPH_FORMAT_VERSION
        && crc32fast::hash(&header[..52]) == le32(&header, 52))
    .then(|| (le64(&header, 16), le32(&header, 52)))
}

/// The blocks the body of `g`'s map will have, at most (its length computed ahead).
fn prospective_blocks(g: &CallGraph) -> Result<usize> {
    let (graph, symbols) = (g.petgraph(), g.symbol_table());
    let (nodes, edges) = (graph.node_count() as u64, graph.edge_count() as u64);
    let mut strings: u64 =
        graph.node_weights().map(|n| if let NodeRef::External(x) = n { x.len() as u64 } else { 0 }).sum();
    strings += symbols
        .iter()
        .map(|s| (s.name.len() + s.qualified_name.len() + s.signature.len() + s.path.len()) as u64)
        .sum::<u64>();
    let mut paths = 0u64;
    let mut sites = 0u64;
    let mut seen: rustc_hash::FxHashSet<&str> = Default::default();
    for e in graph.edge_weights() {
        sites += e.sites.len() as u64;
        for s in &e.sites {
            if seen.insert(&s.path) {
                paths += 1;
                strings += s.path.len() as u64;
            }
        }
    }
    let symbols = symbols.len() as u64;
    let body = strings
        + nodes * NODE as u64
        + 2 * 4 * (nodes + 1)
        + 4 * edges
        + EDGE as u64 * edges
        + SITE as u64 * sites
        + PATH as u64 * paths
        + 3 * 4 * symbols
        + ID as u64 * symbols;
    if body > u32::MAX as u64 * 4 {
        return Err(Error::Corrupt(format!("the graph's map would be {body} bytes")));
    }
    Ok(body.div_ceil(BLOCK as u64) as usize)
}

/// A call graph read in place from `graph.map`.
pub struct MappedGraph {
    path: PathBuf,
    map: memmap2::Mmap,
    sections: [(usize, usize); SECTIONS],
    body: usize,
    blocks: Box<[u32]>,
    verified: Box<[AtomicU64]>,
    generation: u64,
    nodes: u32,
    symbols: u32,
    edges: u32,
}

impl std::fmt::Debug for MappedGraph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MappedGraph")
            .field("path", &self.path)
            .field("nodes", &self.nodes)
            .field("edges", &self.edges)
            .finish()
    }
}

pub(crate) fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn le64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

impl MappedGraph {
    /// Maps `graph.map` of `dir` and checks its header and tables (not its body: each block
    /// is checked when first read). [`Error::Missing`] when there is none.
    pub fn open(dir: &Path) -> Result<MappedGraph> {
        let path = dir.join(MAP_FILE);
        let file = match std::fs::File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Error::Missing),
            Err(e) => return Err(Error::Io { path, error: e }),
        };
        // SAFETY: the map is read-only and index files are never written in place: a writer
        // makes a new file and renames it over this one, so the inode mapped here keeps its
        // bytes for as long as the map lives. A process that truncated the file by hand
        // would make reads fault (SIGBUS), as with any mapped index (tantivy's included).
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Error::Io { path: path.clone(), error: e })?;
        let corrupt = |why: &str| Error::Corrupt(format!("{}: {why}", path.display()));
        if map.len() < HEADER || &map[..8] != MAGIC {
            return Err(corrupt("not a call graph map"));
        }
        let version = le32(&map, 8);
        if version != GRAPH_FORMAT_VERSION {
            return Err(Error::Version { found: version, expected: GRAPH_FORMAT_VERSION });
        }
        if crc32fast::hash(&map[..52]) != le32(&map, 52) {
            return Err(corrupt("its header does not match its checksum"));
        }
        if le32(&map, 12) as usize != BLOCK || le32(&map, 36) as usize != SECTIONS {
            return Err(corrupt("its block size or section count is not this version's"));
        }
        let body_len = le64(&map, 40);
        let blocks = body_len.div_ceil(BLOCK as u64) as usize;
        let tables_at = HEADER;
        let tables_len = SECTIONS * 16 + 4 * blocks;
        let body = map.len().checked_sub(body_len as usize).filter(|&b| b >= tables_at + tables_len);
        let Some(body) = body else {
            return Err(corrupt("it is shorter than its header says"));
        };
        if crc32fast::hash(&map[tables_at..body]) != le32(&map, 48) {
            return Err(corrupt("its section table does not match its checksum"));
        }
        let mut sections = [(0usize, 0usize); SECTIONS];
        for (k, s) in sections.iter_mut().enumerate() {
            let (off, len) = (le64(&map, tables_at + 16 * k), le64(&map, tables_at + 16 * k + 8));
            if off < body as u64 || off.checked_add(len).is_none_or(|end| end > map.len() as u64) {
                return Err(corrupt("a section lies outside the file"));
            }
            *s = ((off as usize) - body, len as usize);
        }
        let crcs = &map[tables_at + SECTIONS * 16..tables_at + tables_len];
        let blocks: Box<[u32]> = (0..blocks).map(|b| le32(crcs, 4 * b)).collect();
        let verified = (0..blocks.len().div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
        let g = MappedGraph {
            generation: le64(&map, 16),
            nodes: le32(&map, 24),
            symbols: le32(&map, 28),
            edges: le32(&map, 32),
            path: path.clone(),
            map,
            sections,
            body,
            blocks,
            verified,
        };
        let fixed = [
            (Sec::Nodes, NODE * g.nodes as usize),
            (Sec::OutIndex, 4 * (g.nodes as usize + 1)),
            (Sec::InIndex, 4 * (g.nodes as usize + 1)),
            (Sec::InEdges, 4 * g.edges as usize),
            (Sec::Edges, EDGE * g.edges as usize),
        ];
        if g.symbols > g.nodes || fixed.iter().any(|&(s, len)| g.sections[s as usize].1 != len) {
            return Err(corrupt("its sections' lengths do not match its counts"));
        }
        Ok(g)
    }

    /// The generation of the records this graph was resolved from.
    pub fn records_generation(&self) -> u64 {
        self.generation
    }

    /// The CRC-32 of its header: what a `graph.delta` names the map it lies over by.
    pub(crate) fn header_crc(&self) -> u32 {
        le32(&self.map, 52)
    }

    fn corrupt(&self, why: impl std::fmt::Display) -> Error {
        Error::Corrupt(format!("{}: {why}", self.path.display()))
    }

    /// `len` bytes at `at` in section `sec`, their blocks checked.
    fn bytes(&self, sec: Sec, at: usize, len: usize) -> Result<&[u8]> {
        let (off, slen) = self.sections[sec as usize];
        if at.checked_add(len).is_none_or(|end| end > slen) {
            return Err(self.corrupt(format_args!("a read past the end of section {}", sec as usize)));
        }
        let (a, b) = (off + at, off + at + len);
        if len > 0 {
            for block in a / BLOCK..=(b - 1) / BLOCK {
                self.check(block)?;
            }
        }
        Ok(&self.map[self.body + a..self.body + b])
    }

    fn check(&self, block: usize) -> Result<()> {
        let (word, bit) = (&self.verified[block / 64], 1u64 << (block % 64));
        if word.load(Ordering::Relaxed) & bit != 0 {
            return Ok(());
        }
        let start = self.body + block * BLOCK;
        let end = (start + BLOCK).min(self.map.len());
        if crc32fast::hash(&self.map[start..end]) != self.blocks[block] {
            return Err(self.corrupt(format_args!("block {block} does not match its checksum")));
        }
        word.fetch_or(bit, Ordering::Relaxed);
        Ok(())
    }

    fn u32_at(&self, sec: Sec, i: usize) -> Result<u32> {
        Ok(le32(self.bytes(sec, 4 * i, 4)?, 0))
    }

    fn record(&self, sec: Sec, size: usize, i: usize) -> Result<&[u8]> {
        self.bytes(sec, size * i, size)
    }

    /// The string a (offset, length) pair at `at` of `rec` names.
    fn str_of(&self, rec: &[u8], at: usize) -> Result<&str> {
        let bytes = self.bytes(Sec::Strings, le32(rec, at) as usize, le32(rec, at + 4) as usize)?;
        std::str::from_utf8(bytes).map_err(|_| self.corrupt("a string that is not UTF-8"))
    }

    /// The name of node `n` when it is an external one, read in place.
    pub(crate) fn external_name(&self, n: u32) -> Result<Option<&str>> {
        let r = self.node_record(n)?;
        if r[0] != TAG_EXTERNAL {
            return Ok(None);
        }
        self.str_of(r, 16).map(Some)
    }

    fn node_record(&self, n: u32) -> Result<&[u8]> {
        if n >= self.nodes {
            return Err(self.corrupt(format_args!("node {n} of {}", self.nodes)));
        }
        self.record(Sec::Nodes, NODE, n as usize)
    }

    /// The first position in `sec` (a sorted list of symbol positions) whose key is not
    /// below `k`, then how many have `k`; `key` reads a node record's string.
    fn equal_range(&self, sec: Sec, k: &str, field: usize) -> Result<Vec<u32>> {
        let n = self.sections[sec as usize].1 / 4;
        let key = |i: usize| -> Result<(&str, u32)> {
            let p = self.u32_at(sec, i)?;
            Ok((self.str_of(self.node_record(p)?, field)?, p))
        };
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if key(mid)?.0 < k {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let mut out = Vec::new();
        for i in lo..n {
            let (s, p) = key(i)?;
            if s != k {
                break;
            }
            out.push(p);
        }
        Ok(out)
    }

    /// The positions in by-path order from the first whose path is not below `k`.
    fn path_bound(&self, k: &str) -> Result<usize> {
        let n = self.sections[Sec::ByPath as usize].1 / 4;
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let p = self.u32_at(Sec::ByPath, mid)?;
            if self.str_of(self.node_record(p)?, 32)? < k {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        Ok(lo)
    }

    pub(crate) fn edge(&self, e: u32, dir: Direction) -> Result<EdgeMeta> {
        let r = self.record(Sec::Edges, EDGE, e as usize)?;
        let other = if dir == Direction::Outgoing { le32(r, 4) } else { le32(r, 0) };
        let (rung, kind) = (RUNGS.get(r[21] as usize), EdgeKind::ALL.get(r[22] as usize));
        let (Some(&rung), Some(&kind)) = (rung, kind) else {
            return Err(self.corrupt(format_args!("edge {e} has an unknown rung or kind")));
        };
        if other >= self.nodes {
            return Err(self.corrupt(format_args!("edge {e} ends at node {other} of {}", self.nodes)));
        }
        Ok(EdgeMeta {
            other,
            confidence: f32::from_bits(le32(r, 8)),
            ambiguous: r[20] != 0,
            rung,
            kind,
            candidates: r[23],
            edge: e,
        })
    }
}

impl GraphView for MappedGraph {
    fn node_count(&self) -> usize {
        self.nodes as usize
    }

    fn edge_count(&self) -> usize {
        self.edges as usize
    }

    fn symbol_count(&self) -> usize {
        self.symbols as usize
    }

    fn position(&self, id: SymbolId) -> Result<Option<u32>> {
        let n = self.sections[Sec::Ids as usize].1 / ID;
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let r = self.record(Sec::Ids, ID, mid)?;
            match le64(r, 0).cmp(&id.0) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Ok(Some(le32(r, 8))),
            }
        }
        Ok(None)
    }

    fn node(&self, n: u32) -> Result<NodeRef> {
        let r = self.node_record(n)?;
        Ok(match r[0] {
            TAG_SYMBOL => NodeRef::Symbol(SymbolId(le64(r, 8))),
            TAG_FILE => NodeRef::File(self.str_of(r, 32)?.to_string()),
            TAG_EXTERNAL => NodeRef::External(self.str_of(r, 16)?.to_string()),
            t => return Err(self.corrupt(format_args!("node {n} has the unknown tag {t}"))),
        })
    }

    fn symbol_at(&self, pos: u32) -> Result<Cow<'_, SymbolInfo>> {
        if pos >= self.symbols {
            return Err(self.corrupt(format_args!("symbol {pos} of {}", self.symbols)));
        }
        let r = self.node_record(pos)?;
        let kind = SymbolKind::ALL.get(r[1] as usize);
        let lang = cc_grammars::LANGUAGES.get(r[2] as usize).map(|l| l.lang);
        let (Some(&kind), Some(lang)) = (kind, lang) else {
            return Err(self.corrupt(format_args!("symbol {pos} has an unknown kind or language")));
        };
        let lang: Lang = lang;
        Ok(Cow::Owned(SymbolInfo {
            id: SymbolId(le64(r, 8)),
            name: self.str_of(r, 16)?.to_string(),
            qualified_name: self.str_of(r, 24)?.to_string(),
            kind,
            lang,
            path: self.str_of(r, 32)?.to_string(),
            span: Span { start_line: le32(r, 48), start_col: le32(r, 52), end_line: le32(r, 56), end_col: le32(r, 60) },
            signature: self.str_of(r, 40)?.to_string(),
        }))
    }

    fn edges_of(&self, n: u32, dir: Direction, out: &mut Vec<EdgeMeta>) -> Result<()> {
        if n >= self.nodes {
            return Err(self.corrupt(format_args!("node {n} of {}", self.nodes)));
        }
        let index = if dir == Direction::Outgoing { Sec::OutIndex } else { Sec::InIndex };
        let (a, b) = (self.u32_at(index, n as usize)?, self.u32_at(index, n as usize + 1)?);
        if a > b || b > self.edges {
            return Err(self.corrupt(format_args!("node {n}'s edges {a}..{b} of {}", self.edges)));
        }
        for i in a..b {
            let e = if dir == Direction::Outgoing { i } else { self.u32_at(Sec::InEdges, i as usize)? };
            out.push(self.edge(e, dir)?);
        }
        Ok(())
    }

    fn sites(&self, e: &EdgeMeta) -> Result<Vec<Site>> {
        let r = self.record(Sec::Edges, EDGE, e.edge as usize)?;
        let (first, count) = (le32(r, 12) as usize, le32(r, 16) as usize);
        let mut out = Vec::with_capacity(count);
        let mut last: Option<(u32, Arc<str>)> = None;
        for i in first..first + count {
            let s = self.record(Sec::Sites, SITE, i)?;
            let p = le32(s, 0);
            let path = match &last {
                Some((q, path)) if *q == p => path.clone(),
                _ => {
                    let path: Arc<str> = Arc::from(self.str_of(self.record(Sec::Paths, PATH, p as usize)?, 0)?);
                    last = Some((p, path.clone()));
                    path
                }
            };
            out.push(Site { path, line: le32(s, 4), column: le32(s, 8) });
        }
        Ok(out)
    }

    fn named(&self, name: &str) -> Result<Vec<u32>> {
        self.equal_range(Sec::ByName, name, 16)
    }

    fn qualified(&self, qualified: &str) -> Result<Vec<u32>> {
        self.equal_range(Sec::ByQualified, qualified, 24)
    }

    fn positions_in(&self, path: &str) -> Result<Vec<u32>> {
        let dir = path.trim_matches('/');
        let n = self.sections[Sec::ByPath as usize].1 / 4;
        // The file `dir` itself, then what is under `dir/` (`/` + 1 is `0`): two runs of the
        // path order, in order.
        let ranges = if dir.is_empty() {
            vec![(0, n)]
        } else {
            let file = (self.path_bound(dir)?, self.path_bound(&format!("{dir}\0"))?);
            let under = (self.path_bound(&format!("{dir}/"))?, self.path_bound(&format!("{dir}0"))?);
            vec![file, under]
        };
        let mut out = Vec::new();
        for (a, b) in ranges {
            for i in a..b {
                let p = self.u32_at(Sec::ByPath, i)?;
                debug_assert!(within(dir, self.str_of(self.node_record(p)?, 32)?));
                out.push(p);
            }
        }
        Ok(out)
    }
}

/// The call graph saved in `dir`, for queries: `graph.map` (with `graph.delta` over it)
/// walked in place when it is of the records beside it (an index run writes it with every graph), else the graph loaded into
/// memory from `graph.bin` and the records ([`CallGraph::load`]: a map of another version,
/// damaged, or of older records than those a killed index run left).
pub fn open(dir: &Path) -> Result<Box<dyn GraphView>> {
    if let Ok((graph, generation)) = crate::delta::open_layers(dir) {
        let records = cc_indexer::store::records_generation(&dir.join(cc_indexer::store::RECORDS_FILE));
        if records.is_ok_and(|g| g == generation) {
            return Ok(graph);
        }
    }
    Ok(Box::new(CallGraph::load(dir)?))
}
