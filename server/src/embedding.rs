//! The embedding model of this process: named once (`--embed-model`, `CC_EMBED_MODEL`),
//! else the one a repository's index remembers (the model its vectors were made with, written
//! by the index run that made them: [`for_repo`]), loaded on first use, shared by indexing and query embedding behind a lock (indexing
//! takes it one batch at a time, see [`cc_indexer::vectors::update`]).
//!
//! Query vectors are kept in a small cache: an agent repeats queries, and a search over
//! several repositories embeds its query once, not once per repository. A cached query
//! does not wait for the model at all, even while an index run is embedding.

use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::sync::{Mutex, OnceLock};

use cc_indexer::embed::EmbedError;
use cc_indexer::Embedder;

/// Query vectors kept (384 floats each with MiniLM: 1.5 KiB; the cache stays under 1 MiB).
const QUERY_CACHE: usize = 512;

/// The configured model and, once loaded, the model or why it could not be loaded.
pub struct Embeddings {
    spec: Option<String>,
    model: OnceLock<Result<Mutex<Embedder>, String>>,
    cache: Mutex<QueryCache>,
}

/// Query text -> (vector, model id), the oldest entry evicted first.
#[derive(Default)]
struct QueryCache {
    map: HashMap<String, (Vec<f32>, String)>,
    order: VecDeque<String>,
    /// Queries that went to the model, i.e. cache misses (see [`Embeddings::queries_embedded`]).
    embedded: u64,
}

static GLOBAL: OnceLock<Embeddings> = OnceLock::new();

/// What to say when no model is configured.
pub const NOT_CONFIGURED: &str =
    "no embedding model is configured: pass --embed-model DIR (a model folder) or a fastembed model name, or set CC_EMBED_MODEL";

impl Embeddings {
    pub fn new(spec: Option<String>) -> Embeddings {
        Embeddings {
            spec: spec.filter(|s| !s.trim().is_empty()),
            model: OnceLock::new(),
            cache: Mutex::new(QueryCache::default()),
        }
    }

    /// The model named on the command line or in `CC_EMBED_MODEL`, if any.
    pub fn spec(&self) -> Option<&str> {
        self.spec.as_deref()
    }

    /// The loaded model, or why there is none (loaded once; a failure is remembered).
    pub fn model(&self) -> Result<&Mutex<Embedder>, String> {
        let Some(spec) = &self.spec else { return Err(NOT_CONFIGURED.to_string()) };
        self.model
            .get_or_init(|| Embedder::load(spec).map(Mutex::new).map_err(|e| e.to_string()))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// A query's vector and the model id, or why there is none. Served from the cache
    /// when the same text was embedded lately.
    pub fn query(&self, text: &str) -> Result<(Vec<f32>, String), String> {
        let m = self.model()?;
        if let Some(hit) = self.cache.lock().ok().and_then(|c| c.map.get(text).cloned()) {
            return Ok(hit);
        }
        let (v, id) = {
            let mut m = m.lock().map_err(|_| EmbedError::Poisoned.to_string())?;
            (m.embed_query(text).map_err(|e| e.to_string())?, m.model_id.clone())
        };
        if let Ok(mut c) = self.cache.lock() {
            c.embedded += 1;
            if c.map.insert(text.to_string(), (v.clone(), id.clone())).is_none() {
                c.order.push_back(text.to_string());
                while c.order.len() > QUERY_CACHE {
                    if let Some(old) = c.order.pop_front() {
                        c.map.remove(&old);
                    }
                }
            }
        }
        Ok((v, id))
    }

    /// How many queries went to the model (cache misses) so far.
    pub fn queries_embedded(&self) -> u64 {
        self.cache.lock().map_or(0, |c| c.embedded)
    }
}

/// Names the process's model (the first call wins; later calls are ignored).
pub fn configure(spec: Option<String>) {
    let _ = GLOBAL.set(Embeddings::new(spec));
}

/// The process's model: as configured, else from `CC_EMBED_MODEL`.
pub fn global() -> &'static Embeddings {
    GLOBAL.get_or_init(|| Embeddings::new(std::env::var("CC_EMBED_MODEL").ok()))
}

/// The file in a repository's index folder naming the model its vectors were made with.
const REMEMBERED: &str = "embed-model";

/// Records the model a repository's vectors were just made with, for its later searches and
/// index runs that name none: a folder or file as an absolute path (the next command may run
/// elsewhere), a model name as given.
pub fn remember(dir: &Path, spec: &str) -> std::io::Result<()> {
    let spec = std::fs::canonicalize(spec).map_or_else(|_| spec.to_string(), |p| p.display().to_string());
    if remembered(dir).as_deref() == Some(spec.as_str()) {
        return Ok(());
    }
    let tmp = dir.join(format!("{REMEMBERED}.tmp"));
    std::fs::write(&tmp, format!("{spec}\n"))?;
    std::fs::rename(&tmp, dir.join(REMEMBERED))
}

/// The model a repository's index remembers, if any.
pub fn remembered(dir: &Path) -> Option<String> {
    let s = std::fs::read_to_string(dir.join(REMEMBERED)).ok()?;
    let s = s.trim();
    (!s.is_empty()).then(|| s.to_string())
}

/// The model for a repository (its index folder): the process's when one is named, else the
/// one its index remembers, else none. One [`Embeddings`] per model name, so each loads once.
pub fn for_repo(dir: &Path) -> &'static Embeddings {
    let g = global();
    if g.spec().is_some() {
        return g;
    }
    let Some(spec) = remembered(dir) else { return g };
    static BY_SPEC: OnceLock<Mutex<HashMap<String, &'static Embeddings>>> = OnceLock::new();
    let mut by = BY_SPEC.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner());
    by.entry(spec.clone()).or_insert_with(|| Box::leak(Box::new(Embeddings::new(Some(spec)))))
}
