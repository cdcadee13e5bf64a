//! The embedding model of this process: named once (`--embed-model`, `CC_EMBED_MODEL`),
//! loaded on first use, shared by indexing and query embedding behind a lock.

use std::sync::{Mutex, OnceLock};

use cc_indexer::Embedder;

/// The configured model and, once loaded, the model or why it could not be loaded.
pub struct Embeddings {
    spec: Option<String>,
    model: OnceLock<Result<Mutex<Embedder>, String>>,
}

static GLOBAL: OnceLock<Embeddings> = OnceLock::new();

/// What to say when no model is configured.
pub const NOT_CONFIGURED: &str =
    "no embedding model is configured: pass --embed-model DIR (a model folder) or a fastembed model name, or set CC_EMBED_MODEL";

impl Embeddings {
    pub fn new(spec: Option<String>) -> Embeddings {
        Embeddings { spec: spec.filter(|s| !s.trim().is_empty()), model: OnceLock::new() }
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

    /// A query's vector and the model id, or why there is none.
    pub fn query(&self, text: &str) -> Result<(Vec<f32>, String), String> {
        let m = self.model()?;
        let mut m = m.lock().map_err(|_| "the embedding model failed earlier (a panic)".to_string())?;
        let v = m.embed_query(text).map_err(|e| e.to_string())?;
        Ok((v, m.model_id.clone()))
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
