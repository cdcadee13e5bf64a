//! The vector index: one int8 vector per symbol, kept next to the search index, updated
//! incrementally (keyed by the hash of each symbol's text), searched exactly by int8 dot
//! products or, past [`EXACT_MAX`] vectors, by a 1-bit prefilter rescored in int8.
//!
//! Layout of `vectors.bin` (VECTORS_FORMAT_VERSION 2), little-endian:
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `CCVECTRS` |
//! | 4 | format version (u32) |
//! | 8 | header length (u64) |
//! | header | postcard [`Header`]: model id, dimension, per row: symbol id, text hash, kind, language and path (as indexes into name tables), the mean vector, per row the [`prior`] flags |
//! | 4 × n | per-row scale (f32): `vector ≈ code × scale` |
//! | dim × n | codes (i8): the unit-length vector quantised by its largest component to ±127 |
//!
//! A file of another version or model is not read: indexing re-embeds, search says why
//! semantic ranking is unavailable. Version 1 (no prior flags) is still read: search
//! ranks it without priors, and the next index run adds them without re-embedding.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::Path;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::embed::{symbol_text, text_hash, Embedder};
use crate::error::{Error, IoContext, Result};
use crate::record::{FileRecord, SymbolId};

pub const VECTORS_FORMAT_VERSION: u32 = 2;
pub const VECTORS_FILE: &str = "vectors.bin";
const MAGIC: &[u8; 8] = b"CCVECTRS";

/// Up to this many vectors a query scans every int8 vector (exact); past it the 1-bit
/// prefilter + int8 rescoring is used. Measured on 2 cores (`search_bench synthetic`,
/// ARCHITECTURE.md): exact p99 is 11 ms at 100k and 24 ms at 200k, while the prefilter's
/// top-10 overlap with exact falls from 0.990 (100k) to 0.979 (200k) — so exact up to 100k.
pub const EXACT_MAX: usize = 100_000;

/// Candidates the 1-bit prefilter hands to int8 rescoring: at least this many, or 50 per result.
const PREFILTER_MIN: usize = 2_000;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Header {
    pub model_id: String,
    pub dim: u32,
    pub ids: Vec<u64>,
    pub hashes: Vec<u64>,
    pub kinds: Vec<u16>,
    pub langs: Vec<u16>,
    pub paths: Vec<u32>,
    pub kind_names: Vec<String>,
    pub lang_names: Vec<String>,
    pub path_names: Vec<String>,
    /// Mean of the vectors: the 1-bit codes are signs of `vector - mean`.
    pub mean: Vec<f32>,
    /// Per row, its [`prior`] flags (empty in a version 1 file).
    pub priors: Vec<u8>,
}

/// The version 1 header: [`Header`] without `priors`.
#[derive(Deserialize)]
struct HeaderV1 {
    model_id: String,
    dim: u32,
    ids: Vec<u64>,
    hashes: Vec<u64>,
    kinds: Vec<u16>,
    langs: Vec<u16>,
    paths: Vec<u32>,
    kind_names: Vec<String>,
    lang_names: Vec<String>,
    path_names: Vec<String>,
    mean: Vec<f32>,
}

/// Static priors of a symbol, one byte of flags per vector. Semantic ranking adds
/// [`prior::adjustment`] to the cosine: test code and private helpers a little down,
/// documented symbols a little up, since a question in prose is most often about the
/// documented API (on the tokio + sqlalchemy bench set, ARCHITECTURE.md, test code
/// alone held a third of the semantic top 10s of some queries).
pub mod prior {
    use crate::record::Symbol;

    pub const TEST: u8 = 1;
    pub const PRIVATE: u8 = 2;
    pub const DOCUMENTED: u8 = 4;

    /// The flags of one symbol.
    pub fn of(s: &Symbol) -> u8 {
        let mut f = 0;
        if is_test_path(&s.path) {
            f |= TEST;
        }
        if is_private(s) {
            f |= PRIVATE;
        }
        if s.doc.as_deref().is_some_and(|d| !d.trim().is_empty()) {
            f |= DOCUMENTED;
        }
        f
    }

    /// What the flags add to a cosine.
    pub fn adjustment(flags: u8) -> f32 {
        let mut a = 0.0;
        if flags & TEST != 0 {
            a -= 0.10;
        }
        if flags & PRIVATE != 0 {
            a -= 0.05;
        }
        if flags & DOCUMENTED != 0 {
            a += 0.05;
        }
        a
    }

    /// Whether a path is test code: a `test`, `tests`, `testing`, `__tests__`, `spec` or
    /// `specs` directory, or a file named like a test (`test_x.py`, `x_test.go`,
    /// `XTest.java`, `XTests.cs`, `x.test.ts`, `x.spec.js`, `x_spec.rb`).
    pub fn is_test_path(path: &str) -> bool {
        let mut parts = path.split('/').peekable();
        while let Some(p) = parts.next() {
            if parts.peek().is_some() {
                if matches!(p, "test" | "tests" | "testing" | "__tests__" | "spec" | "specs") {
                    return true;
                }
                continue;
            }
            let stem = p.split('.').next().unwrap_or(p);
            return stem.starts_with("test_")
                || ["_test", "_tests", "_spec", "Test", "Tests"].iter().any(|t| stem.ends_with(t))
                || p.contains(".test.")
                || p.contains(".spec.");
        }
        false
    }

    /// Whether a query is about tests (a word `test…`, `spec` or `specs`, also inside an
    /// identifier): then test code is not ranked down. `latest` or `contest` is not.
    pub fn mentions_tests(query: &str) -> bool {
        crate::tokenize::query_terms(query).iter().any(|w| w.starts_with("test") || w == "spec" || w == "specs")
    }

    /// Private by the language's convention: a leading `_` (not a dunder), Rust without
    /// `pub`, a `private` modifier, a lower-case Go name.
    fn is_private(s: &Symbol) -> bool {
        use crate::record::Lang;
        let underscore = s.name.starts_with('_') && !s.name.starts_with("__");
        match s.lang {
            Lang::Rust => !s.signature.starts_with("pub"),
            Lang::Go => s.name.starts_with(|c: char| c.is_lowercase()),
            Lang::Java | Lang::Kotlin | Lang::CSharp | Lang::Swift | Lang::Php => {
                s.signature.split_whitespace().any(|w| w == "private") || underscore
            }
            _ => underscore,
        }
    }
}

/// A repository's vectors in memory.
#[derive(Clone, Debug, Default)]
pub struct VectorIndex {
    pub header: Header,
    pub scales: Vec<f32>,
    /// `dim` codes per row (i8).
    pub codes: Vec<i8>,
    /// `words` u64 per row: sign bits of `vector - mean`.
    bits: Vec<u64>,
    words: usize,
}

/// Which rows a search may return (empty = any).
#[derive(Clone, Debug, Default)]
pub struct VectorFilter {
    pub kinds: Vec<String>,
    pub langs: Vec<String>,
    pub path_prefix: Option<String>,
    /// Add each row's [`prior::adjustment`] to its cosine (when the file has priors).
    pub priors: bool,
}

/// How to search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Exact up to [`EXACT_MAX`] vectors, prefiltered past it.
    Auto,
    Exact,
    /// 1-bit Hamming prefilter to this many candidates, then int8 rescoring.
    Prefilter(usize),
}

/// Quantises a unit vector: codes and the scale that maps them back.
pub fn quantize(v: &[f32]) -> (Vec<i8>, f32) {
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    if max == 0.0 {
        return (vec![0; v.len()], 0.0);
    }
    let scale = max / 127.0;
    (v.iter().map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8).collect(), scale)
}

/// Dot product of two int8 vectors, in chunks of 32 the compiler vectorises.
#[inline]
pub fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    let mut acc = [0i32; 32];
    let (ca, ra) = (a.chunks_exact(32), a.chunks_exact(32).remainder());
    let rb = b.chunks_exact(32).remainder();
    for (x, y) in ca.zip(b.chunks_exact(32)) {
        for i in 0..32 {
            acc[i] += i32::from(x[i]) * i32::from(y[i]);
        }
    }
    let tail: i32 = ra.iter().zip(rb).map(|(x, y)| i32::from(*x) * i32::from(*y)).sum();
    acc.iter().sum::<i32>() + tail
}

/// Hamming distance of each row of `bits` (`q.len()` words per row) to `q`, into `out`.
/// On x86-64 with POPCNT (detected at run time) the loop is compiled for it: the portable
/// build counts bits in software. POPCNT alone: with AVX2 as well the compiler turns a
/// 6-word row into a `vpshufb` bit count with a horizontal sum per row, which measured the
/// same (A/B in one process, 1M rows: 6.1–6.5 ms either way), and it needs less of the CPU.
fn hamming(bits: &[u64], q: &[u64], out: &mut [u16]) {
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    if std::is_x86_feature_detected!("popcnt") {
        // SAFETY: the feature was detected on this CPU just above.
        return unsafe { hamming_popcnt(bits, q, out) };
    }
    hamming_words(bits, q, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
#[allow(unsafe_code)]
unsafe fn hamming_popcnt(bits: &[u64], q: &[u64], out: &mut [u16]) {
    hamming_words(bits, q, out)
}

/// The scan, specialised for the common code widths (384 and 512 dimensions) so the
/// per-row loop is unrolled; inlined into each feature-specific copy.
#[inline(always)]
fn hamming_words(bits: &[u64], q: &[u64], out: &mut [u16]) {
    #[inline(always)]
    fn fixed<const W: usize>(bits: &[u64], q: &[u64], out: &mut [u16]) {
        let q: &[u64; W] = q.try_into().expect("query code width");
        for (row, d) in bits.chunks_exact(W).zip(out) {
            let mut s = 0u32;
            for i in 0..W {
                s += (row[i] ^ q[i]).count_ones();
            }
            *d = s as u16;
        }
    }
    match q.len() {
        6 => fixed::<6>(bits, q, out),
        8 => fixed::<8>(bits, q, out),
        w => {
            for (row, d) in bits.chunks_exact(w).zip(out) {
                *d = row.iter().zip(q).map(|(x, y)| (x ^ y).count_ones()).sum::<u32>() as u16;
            }
        }
    }
}

/// Dot product of two f32 vectors, in chunks of 16.
#[inline]
pub fn dot_f32(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; 16];
    for (x, y) in a.chunks_exact(16).zip(b.chunks_exact(16)) {
        for i in 0..16 {
            acc[i] += x[i] * y[i];
        }
    }
    let tail: f32 = a.chunks_exact(16).remainder().iter().zip(b.chunks_exact(16).remainder()).map(|(x, y)| x * y).sum();
    acc.iter().sum::<f32>() + tail
}

/// The k best (score, row) pairs, best first.
struct TopK {
    k: usize,
    heap: std::collections::BinaryHeap<std::cmp::Reverse<(Score, usize)>>,
}

#[derive(Clone, Copy, PartialEq, PartialOrd)]
struct Score(f32);
impl Eq for Score {}
#[allow(clippy::derive_ord_xor_partial_ord)]
impl Ord for Score {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&o.0)
    }
}

impl TopK {
    fn new(k: usize) -> TopK {
        TopK { k, heap: std::collections::BinaryHeap::with_capacity(k + 1) }
    }
    #[inline]
    fn push(&mut self, score: f32, row: usize) {
        if self.heap.len() < self.k {
            self.heap.push(std::cmp::Reverse((Score(score), row)));
        } else if let Some(min) = self.heap.peek() {
            // Ties keep the lower row (deterministic).
            if Score(score) > min.0 .0 || (Score(score) == min.0 .0 && row < min.0 .1) {
                self.heap.pop();
                self.heap.push(std::cmp::Reverse((Score(score), row)));
            }
        }
    }
    fn merge(mut self, other: TopK) -> TopK {
        for std::cmp::Reverse((s, r)) in other.heap {
            self.push(s.0, r);
        }
        self
    }
    fn into_sorted(self) -> Vec<(f32, usize)> {
        let mut v: Vec<(f32, usize)> = self.heap.into_iter().map(|std::cmp::Reverse((s, r))| (s.0, r)).collect();
        v.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        v
    }
}

impl VectorIndex {
    pub fn len(&self) -> usize {
        self.header.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn dim(&self) -> usize {
        self.header.dim as usize
    }

    /// Bytes of memory the vectors take (codes, scales, 1-bit codes, ids and hashes).
    pub fn memory_bytes(&self) -> usize {
        self.codes.len() + self.scales.len() * 4 + self.bits.len() * 8 + self.len() * (8 + 8 + 2 + 2 + 4)
    }

    /// The row of a vector, quantised back to f32 (for tests and benchmarks).
    pub fn vector(&self, row: usize) -> Vec<f32> {
        let d = self.dim();
        self.codes[row * d..(row + 1) * d].iter().map(|&c| f32::from(c) * self.scales[row]).collect()
    }

    /// Builds an index from rows of (symbol id, text hash, kind, lang, path, quantised
    /// unit vector, its scale, [`prior`] flags).
    pub fn build<'a>(
        model_id: &str,
        dim: usize,
        rows: impl IntoIterator<Item = (SymbolId, u64, &'a str, &'a str, &'a str, Vec<i8>, f32, u8)>,
    ) -> VectorIndex {
        let mut h = Header { model_id: model_id.to_string(), dim: dim as u32, ..Default::default() };
        let mut tables: [HashMap<String, u32>; 3] = Default::default();
        let mut scales = Vec::new();
        let mut codes = Vec::new();
        fn intern(table: &mut HashMap<String, u32>, names: &mut Vec<String>, s: &str) -> u32 {
            if let Some(&i) = table.get(s) {
                return i;
            }
            let i = names.len() as u32;
            names.push(s.to_string());
            table.insert(s.to_string(), i);
            i
        }
        for (id, hash, kind, lang, path, code, scale, flags) in rows {
            h.priors.push(flags);
            assert_eq!(code.len(), dim, "vector of dimension {} in an index of {dim}", code.len());
            h.ids.push(id.0);
            h.hashes.push(hash);
            h.kinds.push(intern(&mut tables[0], &mut h.kind_names, kind) as u16);
            h.langs.push(intern(&mut tables[1], &mut h.lang_names, lang) as u16);
            h.paths.push(intern(&mut tables[2], &mut h.path_names, path));
            scales.push(scale);
            codes.extend_from_slice(&code);
        }
        let mut mean = vec![0f64; dim];
        for (row, s) in scales.iter().enumerate() {
            for (m, &c) in mean.iter_mut().zip(&codes[row * dim..(row + 1) * dim]) {
                *m += f64::from(c) * f64::from(*s);
            }
        }
        let n = scales.len().max(1) as f64;
        h.mean = mean.into_iter().map(|m| (m / n) as f32).collect();
        let mut v = VectorIndex { header: h, scales, codes, bits: Vec::new(), words: dim.div_ceil(64) };
        v.compute_bits();
        v
    }

    fn compute_bits(&mut self) {
        let d = self.dim();
        self.words = d.div_ceil(64);
        let words = self.words;
        let mut bits = vec![0u64; self.len() * words];
        bits.par_chunks_mut(words.max(1)).enumerate().for_each(|(row, out)| {
            let code = &self.codes[row * d..(row + 1) * d];
            let s = self.scales[row];
            for (i, (&c, &m)) in code.iter().zip(&self.header.mean).enumerate() {
                if f32::from(c) * s > m {
                    out[i / 64] |= 1 << (i % 64);
                }
            }
        });
        self.bits = bits;
    }

    fn query_bits(&self, q: &[f32]) -> Vec<u64> {
        let mut out = vec![0u64; self.words];
        for (i, (&x, &m)) in q.iter().zip(&self.header.mean).enumerate() {
            if x > m {
                out[i / 64] |= 1 << (i % 64);
            }
        }
        out
    }

    /// The rows' filter mask, or `None` when the filter lets everything through.
    fn mask(&self, f: &VectorFilter) -> Option<impl Fn(usize) -> bool + Sync + '_> {
        let prefix = f.path_prefix.as_deref().map(|p| p.trim().trim_start_matches("./").trim_matches('/'));
        let prefix = prefix.filter(|p| !p.is_empty());
        if f.kinds.is_empty() && f.langs.is_empty() && prefix.is_none() {
            return None;
        }
        let h = &self.header;
        let ok = |names: &[String], want: &[String]| -> Vec<bool> {
            names.iter().map(|n| want.is_empty() || want.iter().any(|w| w == n)).collect()
        };
        let kind_ok = ok(&h.kind_names, &f.kinds);
        let lang_ok = ok(&h.lang_names, &f.langs);
        let path_ok: Vec<bool> = h
            .path_names
            .iter()
            .map(|p| match prefix {
                None => true,
                Some(pre) => p == pre || (p.starts_with(pre) && p.as_bytes().get(pre.len()) == Some(&b'/')),
            })
            .collect();
        Some(move |row: usize| {
            kind_ok[h.kinds[row] as usize] && lang_ok[h.langs[row] as usize] && path_ok[h.paths[row] as usize]
        })
    }

    /// The `k` rows nearest `query` (a unit vector of this index's dimension) that pass
    /// `filter`: (symbol id, cosine), best first; ties by row.
    pub fn search(&self, query: &[f32], k: usize, filter: &VectorFilter, strategy: Strategy) -> Vec<(SymbolId, f32)> {
        if k == 0 || self.is_empty() || query.len() != self.dim() {
            return Vec::new();
        }
        let strategy = match strategy {
            Strategy::Auto if self.len() > EXACT_MAX => Strategy::Prefilter(PREFILTER_MIN.max(50 * k)),
            Strategy::Auto => Strategy::Exact,
            s => s,
        };
        let (qc, qs) = quantize(query);
        let d = self.dim();
        let mask = self.mask(filter);
        let pass = |row: usize| mask.as_ref().is_none_or(|m| m(row));
        let priors = (filter.priors && self.header.priors.len() == self.len()).then_some(&self.header.priors);
        let score = |row: usize| {
            let cos = dot_i8(&qc, &self.codes[row * d..(row + 1) * d]) as f32 * qs * self.scales[row];
            priors.map_or(cos, |p| cos + prior::adjustment(p[row]))
        };
        let top = match strategy {
            Strategy::Prefilter(c) if c < self.len() => {
                let candidates = self.prefilter(query, c, mask.as_ref().map(|m| m as &(dyn Fn(usize) -> bool + Sync)));
                let mut top = TopK::new(k);
                for row in candidates {
                    top.push(score(row), row);
                }
                top
            }
            _ => {
                const CHUNK: usize = 16 * 1024;
                let rows: Vec<usize> = (0..self.len().div_ceil(CHUNK)).collect();
                rows.par_iter()
                    .map(|&c| {
                        let mut top = TopK::new(k);
                        for row in c * CHUNK..((c + 1) * CHUNK).min(self.len()) {
                            if pass(row) {
                                top.push(score(row), row);
                            }
                        }
                        top
                    })
                    .reduce(|| TopK::new(k), TopK::merge)
            }
        };
        top.into_sorted().into_iter().map(|(s, row)| (SymbolId(self.header.ids[row]), s)).collect()
    }

    /// About `c` rows nearest by Hamming distance of the 1-bit codes (all rows at the
    /// cut-off distance are kept), in row order.
    fn prefilter(&self, query: &[f32], c: usize, mask: Option<&(dyn Fn(usize) -> bool + Sync)>) -> Vec<usize> {
        const ROWS: usize = 16 * 1024;
        let qb = self.query_bits(query);
        let w = self.words.max(1);
        let bins = w * 64 + 1;
        // Per block: the distances (u16::MAX for a row the filter drops) and their histogram.
        let blocks: Vec<(Vec<u16>, Vec<u32>)> = self
            .bits
            .par_chunks(w * ROWS)
            .enumerate()
            .map(|(b, block)| {
                let mut dist = vec![0u16; block.len() / w];
                hamming(block, &qb, &mut dist);
                let mut hist = vec![0u32; bins];
                if let Some(pass) = mask {
                    for (i, d) in dist.iter_mut().enumerate() {
                        if !pass(b * ROWS + i) {
                            *d = u16::MAX;
                        }
                    }
                }
                for &d in dist.iter().filter(|&&d| d != u16::MAX) {
                    hist[d as usize] += 1;
                }
                (dist, hist)
            })
            .collect();
        let mut hist = vec![0usize; bins];
        for (_, h) in &blocks {
            for (t, &n) in hist.iter_mut().zip(h) {
                *t += n as usize;
            }
        }
        let (mut cut, mut total) = (bins - 1, 0);
        for (d, &n) in hist.iter().enumerate() {
            total += n;
            if total >= c {
                cut = d;
                break;
            }
        }
        let cut = cut as u16;
        let rows: Vec<Vec<usize>> = blocks
            .par_iter()
            .enumerate()
            .map(|(b, (dist, _))| {
                dist.iter().enumerate().filter(|(_, &d)| d <= cut).map(|(i, _)| b * ROWS + i).collect()
            })
            .collect();
        rows.concat()
    }

    /// Writes `vectors.bin` atomically into `dir`; a failed write (a full disk) leaves no
    /// temporary file.
    pub fn write(&self, dir: &Path) -> Result<()> {
        let path = dir.join(VECTORS_FILE);
        let tmp = path.with_extension("tmp");
        let header = postcard::to_stdvec(&self.header)
            .map_err(|e| Error::Corrupt { path: path.clone(), reason: e.to_string() })?;
        let written = (|| -> Result<()> {
            let f = std::fs::File::create(&tmp).at(&tmp)?;
            let mut w = std::io::BufWriter::with_capacity(1 << 20, f);
            w.write_all(MAGIC).at(&tmp)?;
            w.write_all(&VECTORS_FORMAT_VERSION.to_le_bytes()).at(&tmp)?;
            w.write_all(&(header.len() as u64).to_le_bytes()).at(&tmp)?;
            w.write_all(&header).at(&tmp)?;
            let scales: Vec<u8> = self.scales.iter().flat_map(|s| s.to_le_bytes()).collect();
            w.write_all(&scales).at(&tmp)?;
            let codes: Vec<u8> = self.codes.iter().map(|&c| c as u8).collect();
            w.write_all(&codes).at(&tmp)?;
            let f = w.into_inner().map_err(|e| Error::Io { path: tmp.clone(), error: e.into_error() })?;
            f.sync_all().at(&tmp)
        })();
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
        std::fs::rename(&tmp, &path).at(&path)
    }

    /// Reads `dir/vectors.bin`: `Ok(None)` when there is none; an error for another
    /// version or a damaged file.
    pub fn read(dir: &Path) -> Result<Option<VectorIndex>> {
        let path = dir.join(VECTORS_FILE);
        let mut f = match std::fs::File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::Io { path, error: e }),
        };
        let corrupt = |reason: String| Error::Corrupt { path: path.clone(), reason };
        let mut fixed = [0u8; 20];
        f.read_exact(&mut fixed).map_err(|e| corrupt(e.to_string()))?;
        if &fixed[..8] != MAGIC {
            return Err(corrupt("not a vectors file".into()));
        }
        let version = u32::from_le_bytes(fixed[8..12].try_into().expect("4"));
        if version != VECTORS_FORMAT_VERSION && version != 1 {
            return Err(corrupt(format!("vectors format version {version}, expected {VECTORS_FORMAT_VERSION}")));
        }
        // Every length is checked against the file before anything of that size is
        // allocated: a damaged header cannot ask for any amount of memory.
        let size = f.metadata().map_err(|e| corrupt(e.to_string()))?.len();
        let hlen = u64::from_le_bytes(fixed[12..20].try_into().expect("8"));
        if hlen > size - 20 {
            return Err(corrupt(format!("a header of {hlen} bytes in a file of {size}")));
        }
        let rows_len = size - 20 - hlen;
        let hlen = hlen as usize;
        let mut hbytes = vec![0u8; hlen];
        f.read_exact(&mut hbytes).map_err(|e| corrupt(e.to_string()))?;
        let header: Header = if version == 1 {
            let h: HeaderV1 = postcard::from_bytes(&hbytes).map_err(|e| corrupt(e.to_string()))?;
            Header {
                model_id: h.model_id,
                dim: h.dim,
                ids: h.ids,
                hashes: h.hashes,
                kinds: h.kinds,
                langs: h.langs,
                paths: h.paths,
                kind_names: h.kind_names,
                lang_names: h.lang_names,
                path_names: h.path_names,
                mean: h.mean,
                priors: Vec::new(),
            }
        } else {
            postcard::from_bytes(&hbytes).map_err(|e| corrupt(e.to_string()))?
        };
        let n = header.ids.len();
        let d = header.dim as usize;
        if [header.hashes.len(), header.kinds.len(), header.langs.len(), header.paths.len()].iter().any(|&l| l != n)
            || header.mean.len() != d
            || !(header.priors.is_empty() || header.priors.len() == n)
        {
            return Err(corrupt("row tables of different lengths".into()));
        }
        if (n as u64).checked_mul(4 + d as u64) != Some(rows_len) {
            return Err(corrupt(format!(
                "{n} vectors of {d} dimensions do not fit the {rows_len} bytes after the header"
            )));
        }
        let mut scales = vec![0u8; n * 4];
        f.read_exact(&mut scales).map_err(|e| corrupt(format!("scales: {e}")))?;
        let scales = scales.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().expect("4"))).collect();
        let mut codes = vec![0u8; n * d];
        f.read_exact(&mut codes).map_err(|e| corrupt(format!("codes: {e}")))?;
        let codes = codes.into_iter().map(|c| c as i8).collect();
        let mut v = VectorIndex { header, scales, codes, bits: Vec::new(), words: 0 };
        v.compute_bits();
        Ok(Some(v))
    }
}

/// What [`update`] did.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct VectorReport {
    pub model: String,
    /// Symbols with a vector after the run.
    pub symbols: u64,
    /// Texts embedded in this run (symbols added or whose text changed).
    pub embedded: u64,
    /// Vectors kept from the previous run.
    pub reused: u64,
    pub seconds: f64,
    /// Embedding throughput of this run.
    pub symbols_per_sec: f64,
}

/// Embedding progress: `embed_start(total)` once, then `embed_advance(n)` per batch.
pub trait EmbedProgress: Sync {
    fn embed_start(&self, _texts: u64) {}
    fn embed_advance(&self, _texts: u64) {}
}

impl EmbedProgress for crate::index::NoProgress {}

/// Brings `dir/vectors.bin` up to date with `files`: symbols whose text hash (and the
/// model) match the previous file keep their vectors; the rest are embedded. Nothing is
/// written when nothing changed.
///
/// The model is locked for one batch of [`crate::embed::BATCH`] texts at a time, never
/// for the whole run, and progress is reported with the lock released: a query embedded
/// through the same model (a search while a repository is re-indexed) waits for one
/// batch, not for the repository.
pub fn update(
    dir: &Path,
    files: &[FileRecord],
    embedder: &std::sync::Mutex<Embedder>,
    progress: &dyn EmbedProgress,
    cancel: Option<&std::sync::atomic::AtomicBool>,
) -> Result<VectorReport> {
    let started = std::time::Instant::now();
    let lock = || embedder.lock().map_err(|_| Error::Embed(crate::embed::EmbedError::Poisoned));
    let (model_id, d) = {
        let e = lock()?;
        (e.model_id.clone(), e.dim)
    };
    let prev = match VectorIndex::read(dir) {
        Ok(Some(v)) if v.header.model_id == model_id && v.dim() == d => Some(v),
        _ => None,
    };
    let mut prev_rows: HashMap<u64, usize> = HashMap::new();
    if let Some(p) = &prev {
        for (row, &h) in p.header.hashes.iter().enumerate() {
            prev_rows.entry(h).or_insert(row);
        }
    }
    let symbols: Vec<&crate::record::Symbol> = files.iter().flat_map(|f| &f.symbols).collect();
    let texts: Vec<String> = symbols.par_iter().map(|s| symbol_text(s)).collect();
    let hashes: Vec<u64> = texts.par_iter().map(|t| text_hash(t)).collect();
    let todo: Vec<usize> = (0..symbols.len()).filter(|&i| !prev_rows.contains_key(&hashes[i])).collect();
    progress.embed_start(todo.len() as u64);
    let mut fresh: HashMap<usize, (Vec<i8>, f32)> = HashMap::with_capacity(todo.len());
    let cancelled = || cancel.is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed));
    // Slices of 16 batches sorted by token count, then a batch at a time (a cancel takes
    // effect between batches). Sorting a slice by tokens matters: sorting the whole run by
    // bytes instead embedded tokio at 143 symbols/s against 205-219, unsorted at 76.
    for slice in todo.chunks(crate::embed::BATCH * 16) {
        let slice_texts: Vec<String> = slice.iter().map(|&i| texts[i].clone()).collect();
        let order = lock()?.token_order(&slice_texts);
        for chunk in order.chunks(crate::embed::BATCH) {
            if cancelled() {
                return Err(Error::Cancelled);
            }
            let batch: Vec<&str> = chunk.iter().map(|&j| slice_texts[j].as_str()).collect();
            let vecs = lock()?.embed_batch(&batch).map_err(Error::Embed)?;
            progress.embed_advance(chunk.len() as u64);
            for (&j, v) in chunk.iter().zip(vecs) {
                fresh.insert(slice[j], quantize(&v));
            }
        }
    }
    let unchanged = prev.as_ref().is_some_and(|p| {
        todo.is_empty()
            && p.len() == symbols.len()
            && p.header.priors.len() == p.len()
            && p.header.ids.iter().zip(&symbols).all(|(&id, s)| id == s.id.0)
    });
    let report = VectorReport {
        model: model_id.clone(),
        symbols: symbols.len() as u64,
        embedded: todo.len() as u64,
        reused: (symbols.len() - todo.len()) as u64,
        seconds: started.elapsed().as_secs_f64(),
        symbols_per_sec: todo.len() as f64 / started.elapsed().as_secs_f64().max(1e-9),
    };
    if unchanged {
        return Ok(report);
    }
    let rows = symbols.iter().enumerate().map(|(i, s)| {
        let (code, scale) = match fresh.remove(&i) {
            Some(q) => q,
            None => {
                let p = prev.as_ref().expect("a reused vector has a previous index");
                let row = prev_rows[&hashes[i]];
                (p.codes[row * d..(row + 1) * d].to_vec(), p.scales[row])
            }
        };
        (s.id, hashes[i], s.kind.as_str(), s.lang.name(), s.path.as_str(), code, scale, prior::of(s))
    });
    let index = VectorIndex::build(&model_id, d, rows);
    index.write(dir)?;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic pseudo-random unit vector.
    fn unit(seed: u64, dim: usize) -> Vec<f32> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut v: Vec<f32> = (0..dim)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 40) as f32 / (1u64 << 24) as f32 - 0.5
            })
            .collect();
        crate::embed::normalize(&mut v);
        v
    }

    fn index(n: usize, dim: usize) -> (VectorIndex, Vec<Vec<f32>>) {
        let vecs: Vec<Vec<f32>> = (0..n).map(|i| unit(i as u64 + 1, dim)).collect();
        let paths: Vec<String> = (0..n).map(|i| format!("src/m{}/f{}.py", i % 3, i)).collect();
        let rows = vecs.iter().enumerate().map(|(i, v)| {
            let (c, s) = quantize(v);
            let kind = if i % 2 == 0 { "function" } else { "class" };
            (SymbolId(i as u64), i as u64 * 7, kind, "python", paths[i].as_str(), c, s, 0)
        });
        (VectorIndex::build("test-model", dim, rows), vecs)
    }

    fn brute(vecs: &[Vec<f32>], q: &[f32], k: usize, ok: impl Fn(usize) -> bool) -> Vec<u64> {
        let mut s: Vec<(f32, usize)> =
            vecs.iter().enumerate().filter(|(i, _)| ok(*i)).map(|(i, v)| (dot_f32(v, q), i)).collect();
        s.sort_by(|a, b| b.0.total_cmp(&a.0));
        s.into_iter().take(k).map(|(_, i)| i as u64).collect()
    }

    #[test]
    fn quantised_dot_products_track_f32() {
        for seed in 1..50 {
            let (a, b) = (unit(seed, 384), unit(seed + 1000, 384));
            let (ca, sa) = quantize(&a);
            let (cb, sb) = quantize(&b);
            let approx = dot_i8(&ca, &cb) as f32 * sa * sb;
            assert!((approx - dot_f32(&a, &b)).abs() < 0.01, "{approx} vs {}", dot_f32(&a, &b));
        }
        assert_eq!(dot_i8(&[1; 70], &[2; 70]), 140);
        assert_eq!(dot_f32(&[0.5; 19], &[2.0; 19]), 19.0);
    }

    #[test]
    fn exact_search_finds_the_true_neighbours() {
        let (idx, vecs) = index(3000, 64);
        for seed in [5u64, 77, 901] {
            let q = unit(seed * 31 + 100_000, 64);
            let got: Vec<u64> =
                idx.search(&q, 10, &VectorFilter::default(), Strategy::Exact).iter().map(|h| h.0 .0).collect();
            let want = brute(&vecs, &q, 10, |_| true);
            let overlap = got.iter().filter(|g| want.contains(g)).count();
            assert!(overlap >= 9, "int8 top-10 {got:?} vs f32 {want:?}");
            // A stored vector is its own nearest neighbour.
            let me = idx.search(&vecs[seed as usize], 1, &VectorFilter::default(), Strategy::Exact);
            assert_eq!(me[0].0 .0, seed);
        }
    }

    #[test]
    fn filters_apply_during_the_scan() {
        let (idx, vecs) = index(600, 32);
        let q = unit(4242, 32);
        let f = VectorFilter {
            kinds: vec!["class".into()],
            langs: vec![],
            path_prefix: Some("src/m1/".into()),
            priors: false,
        };
        let got: Vec<u64> = idx.search(&q, 20, &f, Strategy::Exact).iter().map(|h| h.0 .0).collect();
        let want = brute(&vecs, &q, 20, |i| i % 2 == 1 && i % 3 == 1);
        assert_eq!(got.len(), 20);
        assert!(got.iter().all(|i| i % 2 == 1 && i % 3 == 1), "{got:?}");
        assert!(got.iter().filter(|g| want.contains(g)).count() >= 18);
        let none = VectorFilter { langs: vec!["rust".into()], ..Default::default() };
        assert!(idx.search(&q, 5, &none, Strategy::Exact).is_empty());
    }

    #[test]
    fn hamming_kernels_agree_with_a_plain_count() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for w in [1, 5, 6, 8, 12] {
            let rows = 1000;
            let bits: Vec<u64> = (0..rows * w).map(|_| next()).collect();
            let q: Vec<u64> = (0..w).map(|_| next()).collect();
            let want: Vec<u16> = bits
                .chunks(w)
                .map(|r| r.iter().zip(&q).map(|(a, b)| format!("{:064b}", a ^ b).matches('1').count() as u16).sum())
                .collect();
            let mut got = vec![0u16; rows];
            hamming(&bits, &q, &mut got);
            assert_eq!(got, want, "width {w}");
            let mut portable = vec![0u16; rows];
            hamming_words(&bits, &q, &mut portable);
            assert_eq!(portable, want, "width {w}, portable");
        }
    }

    #[test]
    fn prefilter_keeps_near_neighbours() {
        // Clustered data, like embeddings: near copies of a few centres.
        let dim = 128;
        let centres: Vec<Vec<f32>> = (0..50).map(|c| unit(c + 7, dim)).collect();
        let vecs: Vec<Vec<f32>> = (0..5000)
            .map(|i| {
                let mut v: Vec<f32> =
                    centres[i % 50].iter().zip(unit(i as u64 + 99_999, dim)).map(|(c, n)| c + 0.3 * n).collect();
                crate::embed::normalize(&mut v);
                v
            })
            .collect();
        let rows = vecs.iter().enumerate().map(|(i, v)| {
            let (c, s) = quantize(v);
            (SymbolId(i as u64), 0, "function", "python", "a.py", c, s, 0)
        });
        let idx = VectorIndex::build("m", dim, rows);
        let mut overlap = 0;
        for t in 0..20 {
            let q = &vecs[t * 37];
            let exact: Vec<_> = idx.search(q, 10, &VectorFilter::default(), Strategy::Exact);
            let pre: Vec<_> = idx.search(q, 10, &VectorFilter::default(), Strategy::Prefilter(500));
            overlap += pre.iter().filter(|h| exact.contains(h)).count();
        }
        assert!(overlap >= 180, "prefilter kept {overlap}/200 of the exact top-10s");
    }

    #[test]
    fn priors_flag_tests_private_helpers_and_documented_symbols() {
        use crate::record::{Span, Symbol, SymbolKind};
        let sym = |name: &str, path: &str, sig: &str, doc: Option<&str>, lang: Lang| Symbol {
            id: SymbolId(1),
            name: name.into(),
            kind: SymbolKind::Function,
            qualified_name: name.into(),
            parent: None,
            lang,
            path: path.into(),
            span: Span { start_line: 1, start_col: 1, end_line: 1, end_col: 1 },
            signature: sig.into(),
            doc: doc.map(str::to_string),
            body: String::new(),
        };
        use crate::record::Lang;
        assert_eq!(prior::of(&sym("open", "lib/a.py", "def open()", Some("Opens."), Lang::Python)), prior::DOCUMENTED);
        assert_eq!(prior::of(&sym("_open", "lib/a.py", "def _open()", None, Lang::Python)), prior::PRIVATE);
        assert_eq!(prior::of(&sym("__init__", "lib/a.py", "def __init__(self)", None, Lang::Python)), 0);
        assert_eq!(prior::of(&sym("f", "src/a.rs", "fn f()", None, Lang::Rust)), prior::PRIVATE);
        assert_eq!(prior::of(&sym("f", "src/a.rs", "pub(crate) fn f()", None, Lang::Rust)), 0);
        assert_eq!(prior::of(&sym("run", "x/y.go", "func run()", None, Lang::Go)), prior::PRIVATE);
        assert_eq!(prior::of(&sym("g", "A.java", "private void g()", None, Lang::Java)), prior::PRIVATE);
        for t in [
            "tests/a.py",
            "lib/tests/x/a.py",
            "test_a.py",
            "pkg/a_test.go",
            "src/FooTest.java",
            "a.spec.ts",
            "b.test.js",
        ] {
            assert!(prior::is_test_path(t), "{t}");
        }
        for t in ["lib/testing_utils/a.py", "contest.py", "src/attest.rs", "latest/a.py", "tests.py"] {
            assert!(!prior::is_test_path(t), "{t}");
        }
        for q in ["test that retries", "where are the Tests", "test_retry", "retry specs", "testing helpers"] {
            assert!(prior::mentions_tests(q), "{q}");
        }
        for q in ["the latest version", "contest entry", "attestation"] {
            assert!(!prior::mentions_tests(q), "{q}");
        }
        assert!(prior::adjustment(prior::TEST) < prior::adjustment(prior::PRIVATE));
        assert!(prior::adjustment(prior::PRIVATE) < 0.0 && prior::adjustment(prior::DOCUMENTED) > 0.0);
    }

    #[test]
    fn priors_move_ties_only_when_asked() {
        // Two identical vectors: one in test code, one documented. Without priors the
        // lower row wins the tie; with them the documented one leads by 0.15.
        let v = unit(5, 16);
        let rows = [(1u64, "tests/t.rs", prior::TEST), (2, "src/a.rs", prior::DOCUMENTED)].map(|(id, path, f)| {
            let (c, s) = quantize(&v);
            (SymbolId(id), 0, "function", "rust", path, c, s, f)
        });
        let idx = VectorIndex::build("m", 16, rows);
        let plain = idx.search(&v, 2, &VectorFilter::default(), Strategy::Exact);
        assert_eq!(plain[0].0, SymbolId(1));
        assert!((plain[0].1 - plain[1].1).abs() < 1e-6);
        let with = idx.search(&v, 2, &VectorFilter { priors: true, ..Default::default() }, Strategy::Exact);
        assert_eq!(with[0].0, SymbolId(2));
        assert!((with[0].1 - with[1].1 - 0.15).abs() < 1e-3, "{with:?}");
    }

    #[test]
    fn version_1_files_are_read_without_priors() {
        let tmp = tempfile::tempdir().unwrap();
        let (mut idx, _) = index(50, 16);
        idx.header.priors.clear();
        idx.write(tmp.path()).unwrap();
        // A version 1 header is the version 2 one without the trailing (here empty) priors.
        let path = tmp.path().join(VECTORS_FILE);
        let mut bytes = std::fs::read(&path).unwrap();
        let hlen = u64::from_le_bytes(bytes[12..20].try_into().unwrap()) as usize;
        assert_eq!(bytes[20 + hlen - 1], 0, "an empty priors table is one zero byte");
        bytes.remove(20 + hlen - 1);
        bytes[8..12].copy_from_slice(&1u32.to_le_bytes());
        bytes[12..20].copy_from_slice(&(hlen as u64 - 1).to_le_bytes());
        std::fs::write(&path, &bytes).unwrap();
        let back = VectorIndex::read(tmp.path()).unwrap().unwrap();
        assert!(back.header.priors.is_empty());
        assert_eq!(back.codes, idx.codes);
        let q = back.vector(3);
        let hits = back.search(&q, 1, &VectorFilter { priors: true, ..Default::default() }, Strategy::Exact);
        assert_eq!(hits[0].0, SymbolId(back.header.ids[3]));
    }

    #[test]
    fn round_trip_and_version_refusal() {
        let tmp = tempfile::tempdir().unwrap();
        assert!(VectorIndex::read(tmp.path()).unwrap().is_none());
        let (idx, _) = index(100, 48);
        idx.write(tmp.path()).unwrap();
        let back = VectorIndex::read(tmp.path()).unwrap().unwrap();
        assert_eq!(back.header.ids, idx.header.ids);
        assert_eq!(back.codes, idx.codes);
        assert_eq!(back.scales, idx.scales);
        assert_eq!(back.bits, idx.bits);
        let path = tmp.path().join(VECTORS_FILE);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[8..12].copy_from_slice(&99u32.to_le_bytes());
        std::fs::write(&path, &bytes).unwrap();
        let e = VectorIndex::read(tmp.path()).unwrap_err().to_string();
        assert!(e.contains("vectors format version 99, expected 2") && e.contains("re-index"), "{e}");
        std::fs::write(&path, b"CCVECTRS").unwrap();
        assert!(VectorIndex::read(tmp.path()).unwrap_err().to_string().contains("corrupt"));
    }

    /// A damaged length (the header's, or a dimension that does not fit the rows) is an
    /// error before anything of that size is allocated (2^60 bytes would abort the process).
    #[test]
    fn lengths_that_do_not_fit_the_file_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let (idx, _) = index(10, 48);
        idx.write(tmp.path()).unwrap();
        let path = tmp.path().join(VECTORS_FILE);
        let good = std::fs::read(&path).unwrap();
        let mut huge = good.clone();
        huge[12..20].copy_from_slice(&(1u64 << 60).to_le_bytes());
        let mut short = good.clone();
        short.truncate(good.len() - 1);
        let mut long = good.clone();
        long.push(0);
        for (what, bytes) in [("a header of 2^60 bytes", huge), ("a byte short", short), ("a byte over", long)] {
            std::fs::write(&path, bytes).unwrap();
            let e = VectorIndex::read(tmp.path()).unwrap_err().to_string();
            assert!(e.contains("corrupt"), "{what}: {e}");
        }
    }
}
