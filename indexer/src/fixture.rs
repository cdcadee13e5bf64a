//! Inline multi-file fixtures, as the test suites write them: one string in which each
//! file starts with a `//- /path` header line; and where a test finds its source tree.
//!
//! ```
//! let files = cc_indexer::fixture::parse("//- /a.py\ndef f():\n    pass\n//- /b.py\nx = 1\n");
//! assert_eq!(files[0], ("a.py".to_string(), "def f():\n    pass\n".to_string()));
//! assert_eq!(files[1].0, "b.py");
//! ```

/// Splits a fixture into (path, text) pairs, in order.
pub fn parse(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        if let Some(path) = line.strip_prefix("//- /") {
            out.push((path.trim().to_string(), String::new()));
        } else if let Some((_, body)) = out.last_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    out
}

/// The source folder of the package whose test or bench is running: the runner's
/// `CARGO_MANIFEST_DIR` (cargo and nextest set it), else `compiled`, the caller's
/// `env!("CARGO_MANIFEST_DIR")`. The runtime value comes first: a test binary reused from
/// a shared target dir carries the path of the checkout that compiled it, which may be
/// gone.
pub fn manifest_dir(compiled: &str) -> std::path::PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(|| compiled.into(), Into::into)
}
