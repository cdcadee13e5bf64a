//! The indexer's error type: every variant says what a person can do about it.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{}: no such directory", .0.display())]
    RootMissing(PathBuf),
    #[error("{}: is a file, not a directory; index the repository folder that holds it", .0.display())]
    RootNotDir(PathBuf),
    #[error("{}: cannot read the directory: {source}", path.display())]
    RootUnreadable { path: PathBuf, source: std::io::Error },
    #[error("no repository named '{name}' is indexed{}", hint(.known))]
    UnknownRepo { name: String, known: Vec<String> },
    #[error(
        "the index of '{name}' was written in format version {found}; this cc-server reads version {expected}. \
         Re-index it: cc-server index {root} --name {name}"
    )]
    FormatVersion { name: String, root: String, found: u32, expected: u32 },
    #[error("the name '{name}' is already used by {existing}; pick another with --name, or remove that index first (`cc-server remove {name}`)")]
    NameTaken { name: String, existing: String },
    #[error("invalid repository name '{0}': use letters, digits, '.', '-' and '_' (at most 100)")]
    BadName(String),
    /// The I/O error is not the `source` of this one: its text is already in this one's.
    #[error("{}: {error}{}", path.display(), io_hint(error))]
    Io { path: PathBuf, error: std::io::Error },
    #[error("{}: corrupt index file ({reason}); re-index the repository", path.display())]
    Corrupt { path: PathBuf, reason: String },
    #[error("search index: {0}")]
    Tantivy(#[from] tantivy::TantivyError),
    #[error("cancelled; the previous index is unchanged")]
    Cancelled,
    #[error("{0}")]
    Embed(#[from] crate::embed::EmbedError),
    #[error("watching for changes: {0}")]
    Watch(#[from] notify::Error),
}

/// What to do about an I/O error, when there is something to say.
pub fn io_hint(e: &std::io::Error) -> &'static str {
    match e.kind() {
        std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded => {
            "; the disk is full: free space on it (or point --data-dir / CC_DATA_DIR elsewhere) and run the command \
             again (what was indexed before is kept)"
        }
        _ => "",
    }
}

fn hint(known: &[String]) -> String {
    if known.is_empty() {
        "; nothing is indexed yet: run `cc-server index PATH`".to_string()
    } else {
        format!("; indexed: {}", known.join(", "))
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

pub(crate) trait IoContext<T> {
    fn at(self, path: impl Into<PathBuf>) -> Result<T>;
}

impl<T> IoContext<T> for std::io::Result<T> {
    fn at(self, path: impl Into<PathBuf>) -> Result<T> {
        self.map_err(|error| Error::Io { path: path.into(), error })
    }
}
