//! `graph.keys`: for each key some resolution noted ([`crate::resolve::deps`]), the files of
//! `graph.bin` whose resolutions noted it.
//!
//! An update re-resolves the references that noted a key a change altered. Asking every
//! file's reverse index ([`FileDeps`](crate::resolve::deps::FileDeps)) means decoding all of
//! them (spring-framework: 9,645 files); this file answers which few to ask. It is written
//! with `graph.bin` and names it (its `base`): the files the journal changed since are asked
//! as well, whatever it says of them.
//!
//! Layout, little-endian (read with `from_le_bytes`, no alignment assumed):
//!
//! ```text
//! magic "CCGKEYS\0" | format u32 | crc32 u32 (of what follows the header) | base u64
//! | keys u64 | pairs u64                                    (40 bytes)
//! keys:  u32 × keys, sorted, distinct
//! ends:  u32 × keys: the files of keys[i] are files[ends[i - 1]..ends[i]]
//! files: u32 × pairs: positions in graph.bin's file list, ascending per key
//! ```

use std::path::Path;
use std::sync::Arc;

use rustc_hash::FxHashSet as HashSet;

use crate::graph::GRAPH_FORMAT_VERSION;
use crate::mapped::le32;
use crate::resolve::deps::Key;
use crate::Result;

pub(crate) const KEYS_FILE: &str = "graph.keys";

const MAGIC: &[u8; 8] = b"CCGKEYS\0";
const HEADER: usize = 40;

/// Writes `graph.keys` into `dir` atomically: `files[i]` holds the distinct keys file `i` of
/// `graph.bin` (named `base`) noted.
pub(crate) fn save(dir: &Path, base: u64, files: &[Vec<Key>]) -> Result<()> {
    let mut pairs: Vec<u64> = Vec::with_capacity(files.iter().map(Vec::len).sum());
    for (fi, keys) in files.iter().enumerate() {
        pairs.extend(keys.iter().map(|&k| (k as u64) << 32 | fi as u64));
    }
    pairs.sort_unstable();
    pairs.dedup();
    let mut keys: Vec<u32> = Vec::new();
    let mut ends: Vec<u32> = Vec::new();
    for (i, &p) in pairs.iter().enumerate() {
        let k = (p >> 32) as u32;
        if keys.last() != Some(&k) {
            if !keys.is_empty() {
                ends.push(i as u32);
            }
            keys.push(k);
        }
    }
    if !keys.is_empty() {
        ends.push(pairs.len() as u32);
    }
    let mut body = Vec::with_capacity(4 * (keys.len() * 2 + pairs.len()));
    for x in keys.iter().chain(&ends).copied().chain(pairs.iter().map(|&p| p as u32)) {
        body.extend_from_slice(&x.to_le_bytes());
    }
    let mut out = Vec::with_capacity(HEADER + body.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&GRAPH_FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(&body).to_le_bytes());
    out.extend_from_slice(&base.to_le_bytes());
    out.extend_from_slice(&(keys.len() as u64).to_le_bytes());
    out.extend_from_slice(&(pairs.len() as u64).to_le_bytes());
    out.extend_from_slice(&body);
    crate::graph::replace_file(dir, KEYS_FILE, &out)
}

/// `graph.keys` as read, with `graph.bin`'s files in its order and the files the journal
/// changed since.
pub(crate) struct NotedBy {
    bytes: Vec<u8>,
    keys: usize,
    pairs: usize,
    paths: Vec<Arc<str>>,
    touched: HashSet<Arc<str>>,
}

impl NotedBy {
    /// `graph.keys` of `dir` when it is of `graph.bin` named `base` (whose files are
    /// `paths`, in order), whole and of this format; `None` otherwise (an update then asks
    /// every file).
    pub(crate) fn read(dir: &Path, base: u64, paths: Vec<Arc<str>>) -> Option<NotedBy> {
        let bytes = std::fs::read(dir.join(KEYS_FILE)).ok()?;
        let head = bytes.get(..HEADER)?;
        let le64 = |at: usize| u64::from_le_bytes(head[at..at + 8].try_into().expect("8 bytes"));
        if &head[..8] != MAGIC || le32(head, 8) != GRAPH_FORMAT_VERSION || le64(16) != base {
            return None;
        }
        let (keys, pairs) = (usize::try_from(le64(24)).ok()?, usize::try_from(le64(32)).ok()?);
        let body = &bytes[HEADER..];
        if body.len() as u128 != 4 * (2 * keys as u128 + pairs as u128) || crc32fast::hash(body) != le32(head, 12) {
            return None;
        }
        Some(NotedBy { bytes, keys, pairs, paths, touched: HashSet::default() })
    }

    /// Marks `path` as changed by the journal: asked whatever the index says.
    pub(crate) fn touch(&mut self, path: &str) {
        if !self.touched.contains(path) {
            self.touched.insert(Arc::from(path));
        }
    }

    fn u32_at(&self, i: usize) -> u32 {
        le32(&self.bytes, HEADER + 4 * i)
    }

    fn key(&self, i: usize) -> u32 {
        self.u32_at(i)
    }

    fn end(&self, i: usize) -> usize {
        self.u32_at(self.keys + i) as usize
    }

    fn file(&self, i: usize) -> u32 {
        self.u32_at(2 * self.keys + i)
    }

    /// The files that may hold a reference that noted one of `keys`: those `graph.keys`
    /// lists under one, and those the journal changed. `None`: the index names a file or a
    /// position past what there is (it is not of this graph.bin after all; every file is asked).
    pub(crate) fn candidates(&self, keys: &HashSet<Key>) -> Option<HashSet<&str>> {
        let mut out: HashSet<&str> = self.touched.iter().map(|p| &**p).collect();
        for &k in keys {
            // The first position whose key is not below `k`.
            let (mut lo, mut hi) = (0, self.keys);
            while lo < hi {
                let mid = (lo + hi) / 2;
                if self.key(mid) < k {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            if lo < self.keys && self.key(lo) == k {
                let (start, end) = (if lo == 0 { 0 } else { self.end(lo - 1) }, self.end(lo));
                if start > end || end > self.pairs {
                    return None;
                }
                for i in start..end {
                    out.insert(self.paths.get(self.file(i) as usize)?);
                }
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(n: usize) -> Vec<Arc<str>> {
        (0..n).map(|i| Arc::from(format!("f{i}"))).collect()
    }

    fn sorted(s: Option<HashSet<&str>>) -> Vec<&str> {
        let mut v: Vec<&str> = s.expect("an index of this graph.bin").into_iter().collect();
        v.sort_unstable();
        v
    }

    #[test]
    fn the_files_of_a_key_are_found_and_the_journals_too() {
        let dir = tempfile::tempdir().unwrap();
        save(dir.path(), 7, &[vec![1, 5], vec![], vec![5, 9], vec![u32::MAX]]).unwrap();
        let mut n = NotedBy::read(dir.path(), 7, paths(4)).unwrap();
        let keys = |v: &[u32]| v.iter().copied().collect::<HashSet<Key>>();
        assert_eq!(sorted(n.candidates(&keys(&[5]))), vec!["f0", "f2"]);
        assert_eq!(sorted(n.candidates(&keys(&[9, u32::MAX]))), vec!["f2", "f3"]);
        assert_eq!(sorted(n.candidates(&keys(&[0, 2, 6]))), Vec::<&str>::new());
        n.touch("f1");
        n.touch("f1");
        assert_eq!(sorted(n.candidates(&keys(&[1]))), vec!["f0", "f1"]);
        // Of another graph.bin: not read. Naming a file past graph.bin's: every file asked.
        assert!(NotedBy::read(dir.path(), 8, paths(4)).is_none());
        let short = NotedBy::read(dir.path(), 7, paths(3)).unwrap();
        assert!(short.candidates(&keys(&[u32::MAX])).is_none());
        assert_eq!(sorted(short.candidates(&keys(&[5]))), vec!["f0", "f2"]);
    }

    #[test]
    fn a_damaged_or_missing_index_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        assert!(NotedBy::read(dir.path(), 1, paths(2)).is_none());
        save(dir.path(), 1, &[vec![3], vec![3, 4]]).unwrap();
        let path = dir.path().join(KEYS_FILE);
        let good = std::fs::read(&path).unwrap();
        for at in [0, 9, HEADER, good.len() - 1] {
            let mut bad = good.clone();
            bad[at] ^= 0x10;
            std::fs::write(&path, &bad).unwrap();
            assert!(NotedBy::read(dir.path(), 1, paths(2)).is_none(), "byte {at} changed");
        }
        std::fs::write(&path, &good[..good.len() - 4]).unwrap();
        assert!(NotedBy::read(dir.path(), 1, paths(2)).is_none());
        // An empty index reads.
        save(dir.path(), 2, &[vec![], vec![]]).unwrap();
        assert!(
            sorted(NotedBy::read(dir.path(), 2, paths(2)).unwrap().candidates(&[3].into_iter().collect())).is_empty()
        );
    }
}
