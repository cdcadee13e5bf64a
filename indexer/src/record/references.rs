//! A file's references, its plain calls kept encoded until something reads them.

use std::sync::OnceLock;

use compact_str::CompactString;
use serde::{Deserialize, Serialize};

use super::{Lang, RefKind, Reference};

/// A file's references, in the order the extractor found them.
///
/// A file read back from `records.bin` keeps its plain calls (a call that binds no
/// variable: 521,000 of spring-framework's 798,000 references) encoded until something
/// reads them. An update reads every file's other references (imports, types, bindings:
/// the resolver's tables, through [`References::kept`]) and the names its calls use
/// ([`References::call_names`]), but the calls themselves of only the few files it resolves
/// again.
///
/// `Deref` gives them all (the plain calls decoded once, on any thread); `DerefMut` decodes
/// and lets go of the encoding. The bytes were written by this format version and read
/// through a zstd checksum, so they decode: a failure is a bug, and panics rather than
/// answering with a file's calls missing.
#[derive(Clone, Default)]
pub struct References {
    all: OnceLock<Vec<Reference>>,
    split: Option<Box<Split>>,
}

/// The references of a file as read: the plain calls still encoded.
#[derive(Clone)]
struct Split {
    /// Every reference but the plain calls, in order.
    kept: Vec<Reference>,
    /// postcard of the plain calls (a `Vec<Reference>`), in order.
    plain: Box<[u8]>,
    /// Bit `i` (of byte `i / 8`, from the lowest) set: the `i`-th reference is a plain call.
    order: Box<[u8]>,
    /// The plain calls' names, each once.
    call_names: Vec<CompactString>,
    len: u32,
}

/// A plain call: a call that binds no variable (`f(x)`, not `c = f(x)`).
fn is_plain_call(r: &Reference) -> bool {
    r.kind == RefKind::Call && r.alias().is_none()
}

/// Whether `lang`'s files keep every reference decoded when read: Python and JavaScript,
/// whose every reference the call graph's value flow reads for every file (cc-graph's
/// `flows`).
pub fn keeps_calls_decoded(lang: Lang) -> bool {
    matches!(lang, Lang::Python | Lang::JavaScript)
}

impl References {
    /// How many there are (nothing decoded).
    pub fn len(&self) -> usize {
        match (self.all.get(), &self.split) {
            (Some(all), _) => all.len(),
            (None, Some(s)) => s.len as usize,
            (None, None) => 0,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn all(&self) -> &Vec<Reference> {
        self.all.get_or_init(|| match &self.split {
            Some(s) => s.merge().unwrap_or_else(|e| panic!("a checksummed records.bin's calls do not decode: {e}")),
            None => Vec::new(),
        })
    }

    /// Decodes the plain calls now (letting go of their encoding), or says why they do not
    /// decode: for a reader of bytes no checksum vouches for.
    pub(crate) fn settle(&mut self) -> Result<(), String> {
        if let Some(s) = self.split.take() {
            if self.all.get().is_none() {
                let _ = self.all.set(s.merge()?);
            }
        }
        Ok(())
    }

    /// Every reference but the plain calls, in order (nothing decoded).
    pub fn kept(&self) -> impl DoubleEndedIterator<Item = &Reference> {
        let (v, split) = match &self.split {
            Some(s) => (&s.kept, true),
            None => (self.all(), false),
        };
        v.iter().filter(move |r| split || !is_plain_call(r))
    }

    /// The names the plain calls use, each at least once (nothing decoded).
    pub fn call_names(&self) -> impl Iterator<Item = &str> {
        let (names, all): (&[CompactString], &[Reference]) = match &self.split {
            Some(s) => (&s.call_names, &[]),
            None => (&[], self.all()),
        };
        names.iter().map(CompactString::as_str).chain(all.iter().filter(|r| is_plain_call(r)).map(|r| r.name.as_str()))
    }

    /// As `records.bin` stores them for a file of `lang`: as read when nothing changed them.
    pub(crate) fn wire(&self, lang: Lang) -> Result<WireOut<'_>, postcard::Error> {
        if let Some(s) = self.split.as_deref() {
            return Ok(WireOut {
                kept: s.kept.iter().collect(),
                plain: Bytes(std::borrow::Cow::Borrowed(&s.plain)),
                order: Bytes(std::borrow::Cow::Borrowed(&s.order)),
                call_names: s.call_names.iter().map(CompactString::as_str).collect(),
                len: s.len,
            });
        }
        let all = self.all();
        let len = u32::try_from(all.len()).map_err(|_| postcard::Error::SerializeBufferFull)?;
        if keeps_calls_decoded(lang) || !all.iter().any(is_plain_call) {
            return Ok(WireOut {
                kept: all.iter().collect(),
                plain: Bytes::default(),
                order: Bytes::default(),
                call_names: Vec::new(),
                len,
            });
        }
        let mut order = vec![0u8; all.len().div_ceil(8)];
        let (mut kept, mut plain) = (Vec::new(), Vec::new());
        for (i, r) in all.iter().enumerate() {
            if is_plain_call(r) {
                order[i / 8] |= 1 << (i % 8);
                plain.push(r);
            } else {
                kept.push(r);
            }
        }
        let mut call_names: Vec<&str> = plain.iter().map(|r| r.name.as_str()).collect();
        call_names.sort_unstable();
        call_names.dedup();
        Ok(WireOut {
            kept,
            plain: Bytes(std::borrow::Cow::Owned(postcard::to_stdvec(&plain)?)),
            order: Bytes(std::borrow::Cow::Owned(order)),
            call_names,
            len,
        })
    }

    /// From what `records.bin` holds, or why that is not a file's references.
    pub(crate) fn from_wire(w: WireIn<'_>) -> Result<References, String> {
        if w.plain.is_empty() {
            if !w.order.is_empty() || w.len as usize != w.kept.len() {
                return Err("references without calls apart, but an order of them".into());
            }
            return Ok(w.kept.into());
        }
        let plain = w.order.iter().map(|b| b.count_ones() as usize).sum::<usize>();
        if w.order.len() != (w.len as usize).div_ceil(8) || plain + w.kept.len() != w.len as usize {
            return Err(format!("{} references, {} kept and {plain} calls", w.len, w.kept.len()));
        }
        Ok(References {
            all: OnceLock::new(),
            split: Some(Box::new(Split {
                kept: w.kept,
                plain: w.plain.into(),
                order: w.order.into(),
                call_names: w.call_names,
                len: w.len,
            })),
        })
    }
}

impl Split {
    /// Every reference, in order: the kept ones and the plain calls decoded, as `order` says.
    fn merge(&self) -> Result<Vec<Reference>, String> {
        let plain: Vec<Reference> = postcard::from_bytes(&self.plain).map_err(|e| e.to_string())?;
        let (mut kept, mut plain) = (self.kept.iter(), plain.into_iter());
        let mut out = Vec::with_capacity(self.len as usize);
        for i in 0..self.len as usize {
            let r = if self.order[i / 8] & (1 << (i % 8)) != 0 { plain.next() } else { kept.next().cloned() };
            out.push(r.ok_or("fewer references than their order says")?);
        }
        if kept.next().is_some() || plain.next().is_some() {
            return Err("more references than their order says".into());
        }
        Ok(out)
    }
}

/// How `records.bin` holds a file's references, written (the field order is the format).
#[derive(Serialize)]
pub(crate) struct WireOut<'a> {
    /// Every reference but the plain calls, in order; all of them when `plain` is empty.
    kept: Vec<&'a Reference>,
    /// The plain calls, as a postcard `Vec<Reference>` of their own (empty: none apart).
    plain: Bytes<'a>,
    order: Bytes<'a>,
    call_names: Vec<&'a str>,
    len: u32,
}

/// [`WireOut`], read.
#[derive(Deserialize)]
pub(crate) struct WireIn<'a> {
    kept: Vec<Reference>,
    #[serde(borrow)]
    plain: &'a [u8],
    #[serde(borrow)]
    order: &'a [u8],
    call_names: Vec<CompactString>,
    len: u32,
}

/// Bytes written as bytes (one length, then the bytes), which `&[u8]` reads back borrowed.
#[derive(Default)]
pub(crate) struct Bytes<'a>(std::borrow::Cow<'a, [u8]>);

impl Serialize for Bytes<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

impl From<Vec<Reference>> for References {
    fn from(v: Vec<Reference>) -> References {
        References { all: OnceLock::from(v), split: None }
    }
}

impl FromIterator<Reference> for References {
    fn from_iter<I: IntoIterator<Item = Reference>>(iter: I) -> References {
        References::from(iter.into_iter().collect::<Vec<_>>())
    }
}

impl std::ops::Deref for References {
    type Target = Vec<Reference>;
    fn deref(&self) -> &Vec<Reference> {
        self.all()
    }
}

impl std::ops::DerefMut for References {
    fn deref_mut(&mut self) -> &mut Vec<Reference> {
        self.all();
        self.split = None;
        self.all.get_mut().expect("decoded just now")
    }
}

impl<'a> IntoIterator for &'a References {
    type Item = &'a Reference;
    type IntoIter = std::slice::Iter<'a, Reference>;
    fn into_iter(self) -> Self::IntoIter {
        self.all().iter()
    }
}

impl PartialEq for References {
    fn eq(&self, other: &References) -> bool {
        self.all() == other.all()
    }
}

impl Eq for References {}

impl std::fmt::Debug for References {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.all().fmt(f)
    }
}

impl Serialize for References {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.all().serialize(s)
    }
}

impl<'de> Deserialize<'de> for References {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<References, D::Error> {
        Vec::<Reference>::deserialize(d).map(References::from)
    }
}

#[cfg(test)]
impl References {
    /// Whether every reference is decoded.
    pub(crate) fn decoded(&self) -> bool {
        self.all.get().is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Span;

    fn reference(name: &str, kind: RefKind, alias: Option<&str>) -> Reference {
        let span = Span { start_line: 1, start_col: 0, end_line: 1, end_col: 4 };
        Reference::new(name.into(), kind, span, None, Some("o".into()), None, alias.map(Into::into))
    }

    /// Imports, types, a call binding a variable and plain calls (two of one name), mixed.
    fn mixed() -> Vec<Reference> {
        vec![
            reference("java.util.List", RefKind::Import, Some("List")),
            reference("run", RefKind::Call, None),
            reference("Circle", RefKind::Type, Some("c")),
            reference("make", RefKind::Call, Some("m")),
            reference("run", RefKind::Call, None),
            reference("area", RefKind::Call, None),
            reference("f", RefKind::Callback, None),
        ]
    }

    fn read_back(refs: &References, lang: Lang) -> References {
        let bytes = postcard::to_stdvec(&refs.wire(lang).unwrap()).unwrap();
        References::from_wire(postcard::from_bytes(&bytes).unwrap()).unwrap()
    }

    #[test]
    fn plain_calls_read_back_encoded_until_used() {
        let refs = References::from(mixed());
        let read = read_back(&refs, Lang::Java);
        assert!(!read.decoded());
        assert_eq!(read.len(), 7);
        let kept: Vec<&str> = read.kept().map(|r| r.name.as_str()).collect();
        assert_eq!(kept, ["java.util.List", "Circle", "make", "f"]);
        assert_eq!(read.kept().rev().next().map(|r| r.name.as_str()), Some("f"));
        let mut names: Vec<&str> = read.call_names().collect();
        names.sort_unstable();
        assert_eq!(names, ["area", "run"]);
        assert!(!read.decoded(), "kept and call names decode nothing");
        // Written again untouched: the same bytes, still encoded.
        assert_eq!(
            postcard::to_stdvec(&read.wire(Lang::Java).unwrap()).unwrap(),
            postcard::to_stdvec(&refs.wire(Lang::Java).unwrap()).unwrap()
        );
        assert!(!read.decoded());
        // In order, all of them.
        assert_eq!(*read, mixed());
        assert!(read.decoded());
        // The same views once decoded.
        assert_eq!(read.kept().count(), 4);
        assert_eq!(refs.call_names().filter(|n| *n == "run").count(), 2);
    }

    #[test]
    fn a_change_lets_go_of_the_encoding() {
        let mut read = read_back(&References::from(mixed()), Lang::Java);
        read.push(reference("later", RefKind::Call, None));
        let again = read_back(&read, Lang::Java);
        assert_eq!(again.len(), 8);
        assert_eq!(again.last().map(|r| r.name.as_str()), Some("later"));
        assert!(again.call_names().any(|n| n == "later"));
    }

    /// The value flow reads every Python and JavaScript reference: theirs are not kept apart.
    #[test]
    fn python_and_files_without_plain_calls_read_back_decoded() {
        assert!(read_back(&References::from(mixed()), Lang::Python).decoded());
        let no_calls: Vec<Reference> = mixed().into_iter().filter(|r| !is_plain_call(r)).collect();
        assert!(read_back(&References::from(no_calls), Lang::Java).decoded());
        let empty = read_back(&References::default(), Lang::Java);
        assert!(empty.is_empty() && empty.decoded());
    }

    #[test]
    fn counts_that_do_not_agree_are_refused() {
        let refs = References::from(mixed());
        let mut w = refs.wire(Lang::Java).unwrap();
        w.len = 8;
        let bytes = postcard::to_stdvec(&w).unwrap();
        let err = References::from_wire(postcard::from_bytes(&bytes).unwrap()).unwrap_err();
        assert!(err.contains("8 references, 4 kept and 3 calls"), "{err}");
    }
}
