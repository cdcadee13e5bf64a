//! Embeddings: the ONNX Runtime library found at run time, a model from a local folder or
//! by fastembed name, and one text per symbol embedded in batches sorted by token count.
//!
//! Nothing here downloads at build time: `fastembed` is built with `ort-load-dynamic`, and
//! [`init_runtime`] loads `libonnxruntime` from `ORT_DYLIB_PATH`, else from the
//! `onnxruntime` Python package (`onnxruntime/capi/libonnxruntime.so.<version>`, 1.24 or
//! newer). A model is either a folder (`model.onnx` — or the `.onnx` file named — with
//! `tokenizer.json`, `config.json`, `special_tokens_map.json`, `tokenizer_config.json`) or a
//! fastembed model name, which fastembed fetches from the model hub into its cache on a
//! connected machine.
//!
//! A folder's conventions ([`Conventions`]) come from the sentence-transformers files beside
//! the model when it has them — `1_Pooling/config.json` (mean, CLS or last-token pooling),
//! `sentence_bert_config.json` (`max_seq_length`), `config_sentence_transformers.json`
//! (`prompts`: the query and document prefixes instruction-style models need) — and from a
//! `cc-embed.json` of the operator's, which wins: `{"pooling": "mean" | "cls" | "last_token",
//! "max_tokens": 512, "query_prefix": "query: ", "document_prefix": "passage: ",
//! "dimensions": 256}` (`dimensions` truncates each vector, for Matryoshka models). Vectors are
//! always unit length (the index compares them by cosine), truncated ones normalised again.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use fastembed::{
    EmbeddingModel, InitOptionsUserDefined, Pooling, TextEmbedding, TextInitOptions, TokenizerFiles,
    UserDefinedEmbeddingModel,
};

use crate::record::Symbol;
use crate::tokenize::split_identifier;

/// Texts per model call. Batches of similar length (sorted by token count) pad little;
/// 64 measured best on 2 cores (../shared/models/README.md).
pub const BATCH: usize = 64;

/// Longest input in tokens: MiniLM was trained on 256; signatures and docs past that add little.
pub const MAX_TOKENS: usize = 256;

/// Longest doc comment and signature kept in a symbol's text, in bytes.
const MAX_DOC: usize = 240;
const MAX_SIGNATURE: usize = 160;

/// ONNX Runtime's worker threads spin for a while after each run by default. A query is
/// embedded and then searched by rayon on the same cores: spinning ORT threads took those
/// cores from the vector scan (semantic search at 1M vectors: 17 ms with spinning against a
/// 9.5 ms scan). Without spinning they sleep as soon as the run is done.
const NO_SPIN: (&str, &str) = ("session.intra_op.allow_spinning", "0");

/// Why embeddings are not available, or failed. Every message says what to do.
#[derive(Debug, Clone, thiserror::Error)]
pub enum EmbedError {
    #[error(
        "no ONNX Runtime library: set ORT_DYLIB_PATH to libonnxruntime.so (1.24 or newer), or `pip install \
         'onnxruntime>=1.24'` for a python3 on PATH (looked at: {tried})"
    )]
    NoRuntime { tried: String },
    #[error("ONNX Runtime at {path}: {reason}")]
    Runtime { path: String, reason: String },
    #[error("embedding model '{spec}': {reason}")]
    Model { spec: String, reason: String },
    #[error("embedding failed: {0}")]
    Embed(String),
    /// A thread panicked while it held the model: its state cannot be trusted.
    #[error("the embedding model failed earlier (a panic while it was in use)")]
    Poisoned,
}

/// Where the ONNX Runtime library is looked for: `ORT_DYLIB_PATH`, then each Python
/// interpreter's `onnxruntime` package.
#[derive(Clone, Debug)]
pub struct RuntimeSearch {
    pub ort_dylib_path: Option<OsString>,
    pub pythons: Vec<PathBuf>,
}

impl RuntimeSearch {
    /// The search this process does: `ORT_DYLIB_PATH`, `$VIRTUAL_ENV/bin/python`, `python3`, `python`.
    pub fn from_env() -> RuntimeSearch {
        let mut pythons = Vec::new();
        if let Some(v) = std::env::var_os("VIRTUAL_ENV") {
            pythons.push(PathBuf::from(v).join("bin").join("python"));
        }
        pythons.push("python3".into());
        pythons.push("python".into());
        RuntimeSearch { ort_dylib_path: std::env::var_os("ORT_DYLIB_PATH").filter(|v| !v.is_empty()), pythons }
    }

    /// The library's path, or what was tried.
    pub fn find(&self) -> Result<PathBuf, EmbedError> {
        if let Some(p) = &self.ort_dylib_path {
            let p = PathBuf::from(p);
            if p.is_file() {
                return Ok(p);
            }
            return Err(EmbedError::Runtime {
                path: p.display().to_string(),
                reason: "ORT_DYLIB_PATH names no file; point it at libonnxruntime.so (1.24 or newer)".into(),
            });
        }
        let mut tried = vec!["ORT_DYLIB_PATH (unset)".to_string()];
        // find_spec locates the package without importing it (no numpy import, no side effects).
        const FIND: &str = "import importlib.util as u; s = u.find_spec('onnxruntime'); \
                            print(s.submodule_search_locations[0] if s else '')";
        for py in &self.pythons {
            match Command::new(py).args(["-c", FIND]).output() {
                Ok(out) if out.status.success() => {
                    let dir = String::from_utf8_lossy(&out.stdout).trim().to_string();
                    if dir.is_empty() {
                        tried.push(format!("{}: no onnxruntime package", py.display()));
                        continue;
                    }
                    match library_in_package(Path::new(&dir)) {
                        Some(lib) => return Ok(lib),
                        None => tried.push(format!("{}: {dir}/capi has no libonnxruntime", py.display())),
                    }
                }
                Ok(_) => tried.push(format!("{}: failed to run", py.display())),
                Err(_) => tried.push(format!("{}: not found", py.display())),
            }
        }
        Err(EmbedError::NoRuntime { tried: tried.join("; ") })
    }
}

/// `<package>/capi/libonnxruntime.so.<version>` (or `.so`, `.dylib`, `onnxruntime.dll`);
/// the most specific name when there are several.
pub fn library_in_package(package: &Path) -> Option<PathBuf> {
    let capi = package.join("capi");
    let mut found: Vec<PathBuf> = std::fs::read_dir(&capi)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let n = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            (n.starts_with("libonnxruntime.so") || n.starts_with("libonnxruntime") && n.ends_with(".dylib"))
                && !n.contains("providers")
                || n == "onnxruntime.dll"
        })
        .collect();
    found.sort_by_key(|p| std::cmp::Reverse(p.as_os_str().len()));
    found.into_iter().next()
}

/// Loads the ONNX Runtime library once per process (later calls return the first outcome).
pub fn init_runtime() -> Result<PathBuf, EmbedError> {
    static RUNTIME: OnceLock<Result<PathBuf, EmbedError>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            let path = RuntimeSearch::from_env().find()?;
            match ort::init_from(&path) {
                Ok(_builder) => Ok(path),
                Err(e) => Err(EmbedError::Runtime { path: path.display().to_string(), reason: e.to_string() }),
            }
        })
        .clone()
}

/// What `--embed-model` / `CC_EMBED_MODEL` names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelSource {
    /// A local folder, and the ONNX file in it to use.
    Dir { dir: PathBuf, onnx: PathBuf },
    /// A fastembed model (fetched into its cache on first use).
    Name(EmbeddingModel),
}

/// The files a model folder must hold besides the ONNX file.
pub const TOKENIZER_FILES: [&str; 4] =
    ["tokenizer.json", "config.json", "special_tokens_map.json", "tokenizer_config.json"];

impl ModelSource {
    /// A folder (its `model.onnx`), an `.onnx` file in a model folder, or a fastembed model
    /// name (`AllMiniLML6V2`, or its hub code `Qdrant/all-MiniLM-L6-v2-onnx`).
    pub fn parse(spec: &str) -> Result<ModelSource, EmbedError> {
        let err = |reason: String| EmbedError::Model { spec: spec.to_string(), reason };
        let path = Path::new(spec);
        let (dir, onnx) = if path.is_dir() {
            (path.to_path_buf(), path.join("model.onnx"))
        } else if path.is_file() && path.extension().is_some_and(|e| e == "onnx") {
            (path.parent().unwrap_or(Path::new(".")).to_path_buf(), path.to_path_buf())
        } else {
            let by_name = spec.parse::<EmbeddingModel>().ok().or_else(|| {
                TextEmbedding::list_supported_models()
                    .into_iter()
                    .find(|m| m.model_code.eq_ignore_ascii_case(spec))
                    .map(|m| m.model)
            });
            return by_name.map(ModelSource::Name).ok_or_else(|| {
                let names: Vec<String> =
                    TextEmbedding::list_supported_models().iter().map(|m| format!("{:?}", m.model)).collect();
                err(format!(
                    "not a model folder (model.onnx + {}) and not a fastembed model name; names: {}",
                    TOKENIZER_FILES.join(" + "),
                    names.join(", ")
                ))
            });
        };
        for f in std::iter::once(onnx.clone()).chain(TOKENIZER_FILES.iter().map(|f| dir.join(f))) {
            if !f.is_file() {
                return Err(err(format!("the model folder has no {}", f.display())));
            }
        }
        Ok(ModelSource::Dir { dir, onnx })
    }
}

/// How a model folder's model is used (see the module doc).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conventions {
    pub pooling: PoolingMode,
    /// Longest input in tokens.
    pub max_tokens: usize,
    /// Put before every query, and before every document (a symbol's text).
    pub query_prefix: String,
    pub document_prefix: String,
    /// Keep only the first N dimensions of each vector (Matryoshka truncation).
    pub dimensions: Option<usize>,
}

/// How token vectors become one vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PoolingMode {
    Mean,
    Cls,
    /// The last non-padding token's vector (decoder models: Qwen, e5-mistral).
    LastToken,
}

impl Default for Conventions {
    fn default() -> Conventions {
        Conventions {
            pooling: PoolingMode::Mean,
            max_tokens: MAX_TOKENS,
            query_prefix: String::new(),
            document_prefix: String::new(),
            dimensions: None,
        }
    }
}

/// The file in a model folder where the operator states its conventions.
pub const CONVENTIONS_FILE: &str = "cc-embed.json";

/// `cc-embed.json`: every key optional, none unknown.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ConventionsFile {
    pooling: Option<PoolingMode>,
    max_tokens: Option<usize>,
    query_prefix: Option<String>,
    document_prefix: Option<String>,
    dimensions: Option<usize>,
}

impl Conventions {
    /// The conventions of the model folder `dir` (see the module doc).
    pub fn of_folder(dir: &Path) -> Result<Conventions, String> {
        let json = |rel: &str| -> Option<serde_json::Value> {
            serde_json::from_str(&std::fs::read_to_string(dir.join(rel)).ok()?).ok()
        };
        let mut c = Conventions::default();
        if let Some(p) = json("1_Pooling/config.json") {
            let on = |k: &str| p.get(k).and_then(|b| b.as_bool()) == Some(true);
            if on("pooling_mode_cls_token") {
                c.pooling = PoolingMode::Cls;
            } else if on("pooling_mode_lasttoken") {
                c.pooling = PoolingMode::LastToken;
            }
        }
        if let Some(n) = json("sentence_bert_config.json").and_then(|v| v.get("max_seq_length")?.as_u64()) {
            c.max_tokens = n as usize;
        }
        if let Some(prompts) = json("config_sentence_transformers.json").and_then(|v| v.get("prompts").cloned()) {
            let prompt = |keys: &[&str]| keys.iter().find_map(|k| prompts.get(*k)?.as_str().map(String::from));
            c.query_prefix = prompt(&["query"]).unwrap_or_default();
            c.document_prefix = prompt(&["document", "passage", "corpus"]).unwrap_or_default();
        }
        let path = dir.join(CONVENTIONS_FILE);
        if let Ok(text) = std::fs::read_to_string(&path) {
            let f: ConventionsFile = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            c.pooling = f.pooling.unwrap_or(c.pooling);
            c.max_tokens = f.max_tokens.unwrap_or(c.max_tokens);
            c.query_prefix = f.query_prefix.unwrap_or(c.query_prefix);
            c.document_prefix = f.document_prefix.unwrap_or(c.document_prefix);
            c.dimensions = f.dimensions.or(c.dimensions);
        }
        if c.max_tokens == 0 || c.dimensions == Some(0) {
            return Err(format!("{}: max_tokens and dimensions must be at least 1", path.display()));
        }
        Ok(c)
    }

    /// What the vectors depend on besides the weights, for the model's id.
    fn id_part(&self) -> String {
        let mut s = format!("{:?}", self.pooling);
        if self.max_tokens != MAX_TOKENS {
            s.push_str(&format!(":len{}", self.max_tokens));
        }
        if let Some(d) = self.dimensions {
            s.push_str(&format!(":dim{d}"));
        }
        if !self.query_prefix.is_empty() || !self.document_prefix.is_empty() {
            let h = blake3::hash(format!("{}\0{}", self.query_prefix, self.document_prefix).as_bytes());
            s.push_str(&format!(":prompts{}", &h.to_hex()[..8]));
        }
        s
    }
}

/// A loaded embedding model. `embed` takes `&mut self` (the ONNX session is not shared):
/// one per worker, or behind a lock.
pub struct Embedder {
    model: TextEmbedding,
    conventions: Conventions,
    /// Identifies the vectors this model makes: vectors of another id are not comparable.
    pub model_id: String,
    pub dim: usize,
}

impl Embedder {
    /// Loads the ONNX Runtime (once per process) and the model `spec` names.
    pub fn load(spec: &str) -> Result<Embedder, EmbedError> {
        let source = ModelSource::parse(spec)?;
        init_runtime()?;
        let err = |reason: String| EmbedError::Model { spec: spec.to_string(), reason };
        let (model, model_id, conventions) = match &source {
            ModelSource::Dir { dir, onnx } => {
                let read = |p: &Path| std::fs::read(p).map_err(|e| err(format!("{}: {e}", p.display())));
                let onnx_bytes = read(onnx)?;
                let files = TokenizerFiles {
                    tokenizer_file: read(&dir.join("tokenizer.json"))?,
                    config_file: read(&dir.join("config.json"))?,
                    special_tokens_map_file: read(&dir.join("special_tokens_map.json"))?,
                    tokenizer_config_file: read(&dir.join("tokenizer_config.json"))?,
                };
                let conventions = Conventions::of_folder(dir).map_err(err)?;
                let id = format!(
                    "{}:{}:{}",
                    onnx.file_name().and_then(|n| n.to_str()).unwrap_or("model.onnx"),
                    conventions.id_part(),
                    &blake3::hash(&onnx_bytes).to_hex()[..16]
                );
                // Last-token pooling is done here, from the token vectors (fastembed pools
                // mean or CLS).
                let pooling = match conventions.pooling {
                    PoolingMode::Cls => Pooling::Cls,
                    PoolingMode::Mean | PoolingMode::LastToken => Pooling::Mean,
                };
                // Quantization mode None for int8 files too: `Dynamic` refuses batching.
                let user = UserDefinedEmbeddingModel::new(onnx_bytes, files).with_pooling(pooling);
                let opts = InitOptionsUserDefined::new()
                    .with_max_length(conventions.max_tokens)
                    .with_session_config(NO_SPIN.0, NO_SPIN.1);
                (TextEmbedding::try_new_from_user_defined(user, opts).map_err(|e| err(e.to_string()))?, id, conventions)
            }
            ModelSource::Name(m) => {
                let opts = TextInitOptions::new(m.clone())
                    .with_max_length(MAX_TOKENS)
                    .with_session_config(NO_SPIN.0, NO_SPIN.1)
                    .with_cache_dir(model_cache_dir())
                    .with_show_download_progress(false);
                (
                    TextEmbedding::try_new(opts).map_err(|e| err(e.to_string()))?,
                    format!("fastembed:{m:?}"),
                    Conventions::default(),
                )
            }
        };
        let mut e = Embedder { model, conventions, model_id, dim: 0 };
        e.dim = e.embed_query("dimension probe")?.len();
        Ok(e)
    }

    /// How this model is used.
    pub fn conventions(&self) -> &Conventions {
        &self.conventions
    }

    /// One query's vector (after the query prefix), normalised.
    pub fn embed_query(&mut self, text: &str) -> Result<Vec<f32>, EmbedError> {
        let text = format!("{}{text}", self.conventions.query_prefix);
        let mut v = self.run(&[text.as_str()])?;
        v.pop().ok_or_else(|| EmbedError::Embed("the model returned no vector".into()))
    }

    /// The model's vectors of `texts` as they are, pooled, truncated and normalised.
    fn run(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let e = |e: fastembed::Error| EmbedError::Embed(e.to_string());
        let mut vecs = match self.conventions.pooling {
            PoolingMode::LastToken => last_token(self.model.transform(texts, Some(BATCH)).map_err(e)?)?,
            _ => self.model.embed(texts, Some(BATCH)).map_err(e)?,
        };
        for v in &mut vecs {
            if let Some(d) = self.conventions.dimensions {
                v.truncate(d);
            }
            normalize(v);
        }
        Ok(vecs)
    }

    /// Indices of `texts` by token count (capped at the model's maximum), shortest first:
    /// batches taken in this order pad little.
    pub fn token_order(&self, texts: &[String]) -> Vec<usize> {
        let lens: Vec<usize> = texts
            .iter()
            .map(|t| self.model.tokenizer.encode_fast(t.as_str(), true).map_or(t.len() / 4, |e| e.len()))
            .collect();
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| (lens[i].min(self.conventions.max_tokens), i));
        order
    }

    /// Vectors of `texts` (normalised, in the order given), in batches of [`BATCH`] texts of
    /// similar token count; `done(n)` after each batch of `n`.
    pub fn embed(&mut self, texts: &[String], done: &mut dyn FnMut(usize)) -> Result<Vec<Vec<f32>>, EmbedError> {
        let order = self.token_order(texts);
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        for chunk in order.chunks(BATCH) {
            let batch: Vec<&str> = chunk.iter().map(|&i| texts[i].as_str()).collect();
            for (&i, v) in chunk.iter().zip(self.embed_batch(&batch)?) {
                out[i] = v;
            }
            done(chunk.len());
        }
        Ok(out)
    }

    /// Vectors of one batch of documents (at most [`BATCH`] texts, ideally of similar token
    /// counts; each after the document prefix), in order, normalised.
    pub fn embed_batch(&mut self, batch: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let prefix = &self.conventions.document_prefix;
        let prefixed: Vec<String>;
        let texts: Vec<&str> = if prefix.is_empty() {
            batch.to_vec()
        } else {
            prefixed = batch.iter().map(|t| format!("{prefix}{t}")).collect();
            prefixed.iter().map(String::as_str).collect()
        };
        let vecs = self.run(&texts)?;
        if vecs.len() != batch.len() {
            return Err(EmbedError::Embed(format!("{} texts gave {} vectors", batch.len(), vecs.len())));
        }
        Ok(vecs)
    }
}

/// Last-token pooling: per text, the vector of its last token the attention mask keeps.
fn last_token(out: fastembed::EmbeddingOutput) -> Result<Vec<Vec<f32>>, EmbedError> {
    const OUTPUTS: &[fastembed::OutputKey] =
        &[fastembed::OutputKey::OnlyOne, fastembed::OutputKey::ByName("last_hidden_state")];
    let mut vecs = Vec::new();
    for batch in out.into_raw() {
        let t = batch.select_output(&OUTPUTS).map_err(|e| EmbedError::Embed(e.to_string()))?;
        let shape = t.shape().to_vec();
        let [rows, tokens, dim] = shape[..] else {
            return Err(EmbedError::Embed(format!("last-token pooling needs token vectors, the model gave {shape:?}")));
        };
        for r in 0..rows {
            let last = (0..tokens.min(batch.attention_mask_array.ncols()))
                .rev()
                .find(|&i| batch.attention_mask_array[[r, i]] != 0)
                .unwrap_or(0);
            vecs.push((0..dim).map(|d| t[[r, last, d].as_slice()]).collect());
        }
    }
    Ok(vecs)
}

/// Where models fetched by name are cached: `FASTEMBED_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/cc-server/models`, else `~/.cache/cc-server/models`.
fn model_cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("FASTEMBED_CACHE_DIR") {
        return d.into();
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(|| PathBuf::from(".cache"));
    base.join("cc-server").join("models")
}

/// Scales `v` to unit length (a zero vector stays zero).
pub fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

/// The text a symbol is embedded as: kind, the name split into words, then the doc
/// comment (cut at `MAX_DOC`, 240 bytes) if there is one, else the signature, then the path,
/// then the body window's identifiers split into words (`extract::MAX_BODY`, 256 bytes of
/// identifiers: about 60 of MiniLM's tokens, so the whole text stays under its 256).
///
/// The body lifted semantic MRR@10 on the rich tuning half (124 queries) from 0.587 to
/// 0.684, on its held-out half from 0.582 to 0.610, and on the tokio + sqlalchemy set from
/// 0.419 to 0.456 (docs/performance.md, "Search relevance"). Also tried (with classes'
/// bodies still in, tuning half): the identifiers as written (0.682 against 0.689 in
/// words), 96 bytes of them (0.696, recall 0.833 against 0.845), the body only for symbols
/// without a doc (0.601).
///
/// A documented symbol's signature is left out: a question in prose matches what the doc
/// says, and parameter lists and types only pull its vector away from that. Measured
/// with int8 MiniLM (tokio + sqlalchemy bench set, 67 queries): hybrid MRR@10 0.519 ->
/// 0.531, recall@10 0.669 -> 0.692, no-shared-word recall 0.484 -> 0.519; fixture set
/// hybrid MRR 0.930 -> 0.934, semantic 0.898 -> 0.915. The price is semantic mode alone on
/// identifier-like queries (bench shared-word semantic MRR 0.802 -> 0.626), which hybrid
/// answers from BM25 (0.921 -> 0.893). Also tried: the doc alone with the name (no kind,
/// no path; no-shared recall 0.496, shared-word semantic MRR 0.52), no path (0.477), the
/// container's name in words (0.426), the signature up to its `(` (0.473), the doc without
/// code blocks and doctests (0.508), its first paragraph only (0.430), 160 or 400 bytes of
/// it (0.496 both). One query of the 43 is 0.023 of that recall.
pub fn symbol_text(s: &Symbol) -> String {
    let words: Vec<String> = split_identifier(&s.name).into_iter().map(|(_, w)| w).collect();
    let words = if words.is_empty() { s.name.clone() } else { words.join(" ") };
    let mut t = match &s.doc {
        Some(d) => format!("{} {words}: {}\n{}", s.kind.as_str(), cut(d, MAX_DOC), s.path),
        None => format!("{} {words}\n{}\n{}", s.kind.as_str(), cut(&s.signature, MAX_SIGNATURE), s.path),
    };
    if !s.body.is_empty() {
        t.push('\n');
        for (i, w) in s.body.split(' ').flat_map(split_identifier).enumerate() {
            if i > 0 {
                t.push(' ');
            }
            t.push_str(&w.1);
        }
    }
    t
}

/// `s` cut to at most `max` bytes, at a character boundary.
fn cut(s: &str, max: usize) -> &str {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// The key a symbol's vector is kept under: its text's hash (the model is checked separately).
pub fn text_hash(text: &str) -> u64 {
    let h = blake3::hash(text.as_bytes());
    u64::from_le_bytes(h.as_bytes()[..8].try_into().expect("8 bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Lang, Span, SymbolId, SymbolKind};

    fn fake_python(dir: &Path, prints: &str) -> PathBuf {
        let py = dir.join("python-fake");
        std::fs::write(&py, format!("#!/bin/sh\necho '{prints}'\n")).unwrap();
        let mut perm = std::fs::metadata(&py).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
        std::fs::set_permissions(&py, perm).unwrap();
        py
    }

    #[test]
    fn runtime_from_ort_dylib_path() {
        let tmp = tempfile::tempdir().unwrap();
        let lib = tmp.path().join("libonnxruntime.so.1.24.4");
        std::fs::write(&lib, b"").unwrap();
        let s = RuntimeSearch { ort_dylib_path: Some(lib.clone().into()), pythons: vec![] };
        assert_eq!(s.find().unwrap(), lib);
        let s = RuntimeSearch { ort_dylib_path: Some(tmp.path().join("nope.so").into()), pythons: vec![] };
        let e = s.find().unwrap_err().to_string();
        assert!(e.contains("ORT_DYLIB_PATH names no file") && e.contains("nope.so"), "{e}");
    }

    #[test]
    fn runtime_from_python_package() {
        let tmp = tempfile::tempdir().unwrap();
        let pkg = tmp.path().join("site-packages").join("onnxruntime");
        std::fs::create_dir_all(pkg.join("capi")).unwrap();
        for f in ["libonnxruntime.so.1.24.4", "libonnxruntime_providers_shared.so", "__init__.py"] {
            std::fs::write(pkg.join("capi").join(f), b"").unwrap();
        }
        let py = fake_python(tmp.path(), pkg.to_str().unwrap());
        let s = RuntimeSearch { ort_dylib_path: None, pythons: vec![tmp.path().join("missing-python"), py] };
        assert_eq!(s.find().unwrap(), pkg.join("capi").join("libonnxruntime.so.1.24.4"));
    }

    #[test]
    fn no_runtime_says_what_was_tried() {
        let tmp = tempfile::tempdir().unwrap();
        let py = fake_python(tmp.path(), "");
        let s = RuntimeSearch { ort_dylib_path: None, pythons: vec![py, tmp.path().join("missing-python")] };
        let e = s.find().unwrap_err().to_string();
        assert!(e.contains("no ONNX Runtime library") && e.contains("ORT_DYLIB_PATH"), "{e}");
        assert!(e.contains("python-fake: no onnxruntime package") && e.contains("missing-python: not found"), "{e}");
    }

    #[test]
    fn model_specs() {
        let tmp = tempfile::tempdir().unwrap();
        let e = ModelSource::parse(tmp.path().to_str().unwrap()).unwrap_err().to_string();
        assert!(e.contains("has no") && e.contains("model.onnx"), "{e}");
        for f in ["model.onnx", "model_int8.onnx"].iter().chain(TOKENIZER_FILES.iter()) {
            std::fs::write(tmp.path().join(f), b"{}").unwrap();
        }
        assert_eq!(
            ModelSource::parse(tmp.path().to_str().unwrap()).unwrap(),
            ModelSource::Dir { dir: tmp.path().to_path_buf(), onnx: tmp.path().join("model.onnx") }
        );
        let int8 = tmp.path().join("model_int8.onnx");
        assert_eq!(
            ModelSource::parse(int8.to_str().unwrap()).unwrap(),
            ModelSource::Dir { dir: tmp.path().to_path_buf(), onnx: int8 }
        );
        std::fs::remove_file(tmp.path().join("special_tokens_map.json")).unwrap();
        let e = ModelSource::parse(tmp.path().to_str().unwrap()).unwrap_err().to_string();
        assert!(e.contains("special_tokens_map.json"), "{e}");
        assert_eq!(ModelSource::parse("AllMiniLML6V2").unwrap(), ModelSource::Name(EmbeddingModel::AllMiniLML6V2));
        assert_eq!(
            ModelSource::parse("qdrant/all-minilm-l6-v2-onnx").unwrap(),
            ModelSource::Name(EmbeddingModel::AllMiniLML6V2)
        );
        let e = ModelSource::parse("no-such-model").unwrap_err().to_string();
        assert!(e.contains("'no-such-model'") && e.contains("AllMiniLML6V2"), "{e}");
    }

    #[test]
    fn text_of_a_symbol() {
        let s = Symbol {
            id: SymbolId(1),
            name: "backoffWithJitter".into(),
            kind: SymbolKind::Function,
            qualified_name: "net.retry.backoffWithJitter".into(),
            parent: None,
            lang: Lang::Python,
            path: "net/retry.py".into(),
            span: Span { start_line: 1, start_col: 1, end_line: 2, end_col: 1 },
            signature: "def backoffWithJitter(attempt)".into(),
            doc: Some("Delay before the next try.".into()),
            body: String::new(),
        };
        assert_eq!(symbol_text(&s), "function backoff with jitter: Delay before the next try.\nnet/retry.py");
        // The body's identifiers end it, in words.
        let with_body = Symbol { body: "sleepFor max_delay rng".into(), ..s.clone() };
        assert_eq!(
            symbol_text(&with_body),
            "function backoff with jitter: Delay before the next try.\nnet/retry.py\nsleep for max delay rng"
        );
        assert_ne!(text_hash(&symbol_text(&s)), text_hash("function backoff"));
        // Without a doc comment the signature stands in for it.
        let bare = Symbol { doc: None, ..s };
        assert_eq!(symbol_text(&bare), "function backoff with jitter\ndef backoffWithJitter(attempt)\nnet/retry.py");
    }

    #[test]
    fn conventions_from_sentence_transformers_files_and_cc_embed_json() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        assert_eq!(Conventions::of_folder(d).unwrap(), Conventions::default());
        std::fs::create_dir_all(d.join("1_Pooling")).unwrap();
        std::fs::write(d.join("1_Pooling/config.json"), r#"{"pooling_mode_lasttoken": true}"#).unwrap();
        std::fs::write(d.join("sentence_bert_config.json"), r#"{"max_seq_length": 512}"#).unwrap();
        std::fs::write(
            d.join("config_sentence_transformers.json"),
            r#"{"prompts": {"query": "Instruct: find code\nQuery: ", "document": ""}}"#,
        )
        .unwrap();
        let c = Conventions::of_folder(d).unwrap();
        assert_eq!(
            (c.pooling, c.max_tokens, c.query_prefix.as_str(), c.document_prefix.as_str(), c.dimensions),
            (PoolingMode::LastToken, 512, "Instruct: find code\nQuery: ", "", None)
        );
        std::fs::write(
            d.join(CONVENTIONS_FILE),
            r#"{"pooling": "cls", "dimensions": 256, "document_prefix": "passage: "}"#,
        )
        .unwrap();
        let c = Conventions::of_folder(d).unwrap();
        assert_eq!(
            (c.pooling, c.max_tokens, c.dimensions, c.document_prefix.as_str()),
            (PoolingMode::Cls, 512, Some(256), "passage: ")
        );
        std::fs::write(d.join(CONVENTIONS_FILE), r#"{"pooling": "max"}"#).unwrap();
        let e = Conventions::of_folder(d).unwrap_err();
        assert!(e.contains("cc-embed.json") && e.contains("max"), "{e}");
        std::fs::write(d.join(CONVENTIONS_FILE), r#"{"dimensions": 0}"#).unwrap();
        assert!(Conventions::of_folder(d).unwrap_err().contains("at least 1"));
    }

    #[test]
    fn normalise() {
        let mut v = vec![3.0, 4.0];
        normalize(&mut v);
        assert_eq!(v, [0.6, 0.8]);
        let mut z = vec![0.0; 3];
        normalize(&mut z);
        assert_eq!(z, [0.0; 3]);
    }
}
