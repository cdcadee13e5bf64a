//! What a resolution looked at, so that an update re-resolves only what a change can alter.
//!
//! Every lookup the resolver makes in the tables of other files is keyed by something a
//! file provides: a symbol's name or qualified name, a type's members, the file itself (its
//! imports, its bindings, its default export), a Rust path prefix, or Python's value flow.
//! While a reference is resolved, each lookup notes its key here; the keys are kept with the
//! file's resolutions ([`FileDeps`]). A file provides keys, each with a fingerprint of what a
//! lookup under it finds there (`Tables::provided`); when its content changes, the keys
//! whose fingerprints changed ([`changed`]) are what a lookup could now find otherwise, and
//! every reference that noted one is resolved again, and no other.
//!
//! The invariant that makes this sound: a position in another file reaches the resolver
//! only through a noted key that file provides (a name looked up, a class whose bases or
//! subclasses are read, a file whose imports are read). Tables derived once from lookups
//! (a class's bases, an import's files, where a Rust `impl` belongs, an abstract method's
//! implementations) keep the keys their lookups noted and note them again when read.
//! Keys are 32-bit hashes: two keys colliding only re-resolve a reference more.

use std::cell::RefCell;
use std::hash::Hasher;

use rustc_hash::FxHasher;
use serde::{Deserialize, Serialize};

/// A key's hash.
pub(crate) type Key = u32;

/// What a key is of (each kind hashes apart).
#[derive(Clone, Copy)]
#[repr(u8)]
pub(crate) enum Kind {
    /// A symbol's name, a name looked up, a name an import binds.
    Name = 0,
    /// A qualified name looked up.
    Qualified = 1,
    /// A file's own tables (imports, bindings, default export), by path.
    File = 2,
    /// A Rust path prefix (`crate::net`).
    Prefix = 3,
    /// The members of a type, by the type's name (what a walk of its children reads).
    Members = 4,
    /// A class made somewhere, by its name (Java: `new X(…)`, `X::new`): which of an abstract
    /// method's implementations run.
    Made = 5,
}

/// The key of `s` as a `kind`.
pub(crate) fn key(kind: Kind, s: &str) -> Key {
    let mut h = FxHasher::default();
    h.write_u8(kind as u8);
    h.write(s.as_bytes());
    h.write_u8(0xff);
    let x = h.finish();
    (x >> 32) as u32 ^ x as u32
}

/// Python's value flow, which every Python file feeds.
pub(crate) const FLOW: Key = 0xF10F_F10F;

/// A reference that noted more keys than [`LIMIT`] depends on any change.
pub(crate) const ANY: Key = 0xA11A_A11A;

/// Keys kept per reference, at most; past it, [`ANY`].
const LIMIT: usize = 256;

thread_local! {
    /// The keys of the resolutions under way on this thread, innermost last.
    static FRAMES: RefCell<Vec<Vec<Key>>> = const { RefCell::new(Vec::new()) };
}

/// Notes `k` for the resolution under way (none: nothing).
pub(crate) fn note(k: Key) {
    FRAMES.with_borrow_mut(|f| {
        if let Some(top) = f.last_mut() {
            top.push(k);
        }
    });
}

/// Notes the key of `s` as a `kind` (hashed only while recording).
pub(crate) fn note_str(kind: Kind, s: &str) {
    FRAMES.with_borrow_mut(|f| {
        if let Some(top) = f.last_mut() {
            top.push(key(kind, s));
        }
    });
}

/// Notes keys noted earlier (a derived table's, read again).
pub(crate) fn replay(keys: &[Key]) {
    if keys.is_empty() {
        return;
    }
    FRAMES.with_borrow_mut(|f| {
        if let Some(top) = f.last_mut() {
            top.extend_from_slice(keys);
        }
    });
}

/// Runs `f` noting its keys: its value and the keys, sorted and distinct. The keys are
/// noted for an enclosing recording too (what `f` looked at, it did).
pub(crate) fn recorded<T>(f: impl FnOnce() -> T) -> (T, Vec<Key>) {
    FRAMES.with_borrow_mut(|s| s.push(Vec::new()));
    // Popped even when `f` unwinds (a panic inside a rayon job is rethrown elsewhere).
    struct Pop;
    impl Drop for Pop {
        fn drop(&mut self) {
            FRAMES.with_borrow_mut(|s| {
                s.pop();
            });
        }
    }
    let pop = Pop;
    let value = f();
    let mut keys = FRAMES.with_borrow_mut(|s| std::mem::take(s.last_mut().expect("frame")));
    drop(pop);
    keys.sort_unstable();
    keys.dedup();
    replay(&keys);
    (value, keys)
}

/// The keys of one resolution as kept: [`ANY`] alone past [`LIMIT`].
pub(crate) fn bounded(mut keys: Vec<Key>) -> Vec<Key> {
    if keys.len() > LIMIT {
        keys.clear();
        keys.push(ANY);
    }
    keys
}

/// Adds to `out` the keys whose fingerprints differ between `old` and `new` (each sorted by
/// key), a key in one only among them.
pub(crate) fn changed(old: &[(Key, u32)], new: &[(Key, u32)], out: &mut rustc_hash::FxHashSet<Key>) {
    let (mut i, mut j) = (0, 0);
    while i < old.len() || j < new.len() {
        match (old.get(i), new.get(j)) {
            (Some(a), Some(b)) if a.0 == b.0 => {
                if a.1 != b.1 {
                    out.insert(a.0);
                }
                i += 1;
                j += 1;
            }
            (Some(a), Some(b)) if a.0 < b.0 => {
                out.insert(a.0);
                i += 1;
            }
            (Some(_), Some(b)) => {
                out.insert(b.0);
                j += 1;
            }
            (Some(a), None) => {
                out.insert(a.0);
                i += 1;
            }
            (None, Some(b)) => {
                out.insert(b.0);
                j += 1;
            }
            (None, None) => break,
        }
    }
}

/// For each key some reference of a file noted, those references (by position among the
/// file's resolvable references): the reverse index an update reads.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FileDeps {
    /// Distinct, sorted.
    keys: Vec<Key>,
    /// `refs[ends[i - 1]..ends[i]]` noted `keys[i]`.
    ends: Vec<u32>,
    refs: Vec<u32>,
}

impl FileDeps {
    /// The index of `(key, reference)` pairs.
    pub(crate) fn from_pairs(mut pairs: Vec<(Key, u32)>) -> FileDeps {
        pairs.sort_unstable();
        pairs.dedup();
        FileDeps::from_sorted(pairs)
    }

    /// The index of `(key, reference)` pairs sorted and distinct.
    fn from_sorted(pairs: Vec<(Key, u32)>) -> FileDeps {
        let mut d = FileDeps { refs: Vec::with_capacity(pairs.len()), ..FileDeps::default() };
        for (k, r) in pairs {
            if d.keys.last() != Some(&k) {
                if !d.keys.is_empty() {
                    d.ends.push(d.refs.len() as u32);
                }
                d.keys.push(k);
            }
            d.refs.push(r);
        }
        if !d.keys.is_empty() {
            d.ends.push(d.refs.len() as u32);
        }
        d.keys.shrink_to_fit();
        d.ends.shrink_to_fit();
        d
    }

    /// The keys noted, sorted and distinct.
    pub(crate) fn keys(&self) -> &[Key] {
        &self.keys
    }

    /// Every `(key, reference)` pair.
    pub(crate) fn pairs(&self) -> impl Iterator<Item = (Key, u32)> + '_ {
        self.keys.iter().enumerate().flat_map(move |(i, &k)| self.span(i).iter().map(move |&r| (k, r)))
    }

    fn span(&self, i: usize) -> &[u32] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.refs[start..self.ends[i] as usize]
    }

    /// The references that noted a key `changed` holds (sorted, distinct).
    pub(crate) fn hit(&self, changed: &rustc_hash::FxHashSet<Key>) -> Vec<u32> {
        let mut out: Vec<u32> = Vec::new();
        for (i, k) in self.keys.iter().enumerate() {
            if changed.contains(k) {
                out.extend_from_slice(self.span(i));
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Replaces the keys of references `again` (sorted) by `fresh` (theirs, resolved again);
    /// most often they are the same, and the index is left as it is. Whether it changed.
    pub(crate) fn replace(&mut self, again: &[u32], mut fresh: Vec<(Key, u32)>) -> bool {
        fresh.sort_unstable();
        fresh.dedup();
        // Which references are resolved again, by position: a bit each (a graph.bin read
        // replays up to 32 journal frames, each over every pair of the files it changed).
        let mut is_again = vec![0u64; again.iter().max().map_or(0, |&r| r as usize / 64 + 1)];
        for &r in again {
            is_again[r as usize / 64] |= 1 << (r % 64);
        }
        let hit = |r: u32| is_again.get(r as usize / 64).is_some_and(|w| w & (1 << (r % 64)) != 0);
        if self.pairs().filter(|&(_, r)| hit(r)).eq(fresh.iter().copied()) {
            return false;
        }
        // The pairs kept and the fresh ones, both sorted: merged, not sorted again.
        let mut kept = self.pairs().filter(|&(_, r)| !hit(r)).peekable();
        let mut fresh = fresh.into_iter().peekable();
        let mut pairs = Vec::with_capacity(self.refs.len() + fresh.len());
        loop {
            let next = match (kept.peek(), fresh.peek()) {
                (Some(a), Some(b)) if a <= b => kept.next(),
                (Some(_), Some(_)) | (None, Some(_)) => fresh.next(),
                (Some(_), None) => kept.next(),
                (None, None) => break,
            };
            pairs.extend(next);
        }
        drop(kept);
        pairs.dedup();
        *self = FileDeps::from_sorted(pairs);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reverse_index_finds_the_references_of_a_changed_key() {
        let d = FileDeps::from_pairs(vec![(7, 2), (3, 0), (7, 1), (3, 2), (9, 4), (7, 2)]);
        assert_eq!(d.pairs().collect::<Vec<_>>(), vec![(3, 0), (3, 2), (7, 1), (7, 2), (9, 4)]);
        let changed = [7, 9].into_iter().collect();
        assert_eq!(d.hit(&changed), vec![1, 2, 4]);
        let mut r = d.clone();
        assert!(!r.replace(&[1, 4], vec![(9, 4), (7, 1)]));
        assert_eq!(r, d);
        assert!(r.replace(&[2], vec![(5, 2)]));
        assert_eq!(r.pairs().collect::<Vec<_>>(), vec![(3, 0), (5, 2), (7, 1), (9, 4)]);
        // Positions past one word of the set; one resolved again to no key at all.
        let mut w = FileDeps::from_pairs(vec![(1, 63), (1, 64), (2, 128), (2, 0)]);
        w.replace(&[64, 128], vec![(8, 128)]);
        assert_eq!(w.pairs().collect::<Vec<_>>(), vec![(1, 63), (2, 0), (8, 128)]);
        w.replace(&[], Vec::new());
        assert_eq!(w.pairs().count(), 3);
    }

    /// `replace` (a set of positions, a merge) against its definition: the pairs of the
    /// other references and the fresh ones, indexed again.
    #[test]
    fn a_replacement_is_the_index_of_the_other_pairs_and_the_fresh_ones() {
        let mut seed = 0x2545_f491_u64;
        let mut next = |n: u32| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as u32 % n
        };
        for _ in 0..300 {
            let refs = 1 + next(200);
            let pairs: Vec<(Key, u32)> = (0..next(400)).map(|_| (next(40), next(refs))).collect();
            let mut again: Vec<u32> = (0..next(20)).map(|_| next(refs)).collect();
            again.sort_unstable();
            again.dedup();
            let fresh: Vec<(Key, u32)> =
                again.iter().flat_map(|&r| (0..next(4)).map(move |k| (k * 11 % 40, r))).collect();
            let expected = FileDeps::from_pairs(
                pairs.iter().copied().filter(|(_, r)| !again.contains(r)).chain(fresh.iter().copied()).collect(),
            );
            let mut d = FileDeps::from_pairs(pairs);
            d.replace(&again, fresh);
            assert_eq!(d, expected);
        }
    }

    #[test]
    fn keys_noted_inside_a_recording_are_the_enclosing_ones_too() {
        let ((_, inner), outer) = recorded(|| {
            note(1);
            let r = recorded(|| {
                note(4);
                note(2);
                note(4);
            });
            note(3);
            r
        });
        assert_eq!(inner, vec![2, 4]);
        assert_eq!(outer, vec![1, 2, 3, 4]);
        // Outside any recording, nothing is kept.
        note(5);
        assert_eq!(recorded(|| ()).1, Vec::<Key>::new());
        assert_eq!(bounded((0..LIMIT as u32 + 1).collect()), vec![ANY]);
        assert_eq!(bounded(vec![1, 2]), vec![1, 2]);
        assert_ne!(key(Kind::Name, "a"), key(Kind::Qualified, "a"));
        let mut out = rustc_hash::FxHashSet::default();
        changed(&[(1, 10), (2, 20), (4, 40)], &[(2, 21), (3, 30), (4, 40)], &mut out);
        let mut v: Vec<Key> = out.into_iter().collect();
        v.sort_unstable();
        assert_eq!(v, vec![1, 2, 3]);
    }
}
