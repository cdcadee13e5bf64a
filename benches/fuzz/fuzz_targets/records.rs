//! The records.bin reader (`cc_indexer::store`) on arbitrary bytes as a records.bin file:
//! an error, never a panic, never an allocation much larger than the file (libFuzzer's
//! -malloc_limit_mb, set by run.sh, turns one into a crash).
#![no_main]

use std::sync::OnceLock;

use cc_indexer::store::{read_records, records_generation, RecordsReader, RECORDS_FILE};
use cc_indexer::SymbolId;
use libfuzzer_sys::fuzz_target;

/// A folder of its own for the file (in memory when /dev/shm is there).
fn dir() -> &'static std::path::Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let shm = std::path::Path::new("/dev/shm");
        if shm.is_dir() { tempfile::tempdir_in(shm) } else { tempfile::tempdir() }.expect("a temporary folder")
    })
    .path()
}

fuzz_target!(|data: &[u8]| {
    let dir = dir();
    let path = dir.join(RECORDS_FILE);
    std::fs::write(&path, data).unwrap();
    let _ = records_generation(&path);
    let whole = read_records(dir);
    if let Ok(reader) = RecordsReader::open(dir) {
        // Symbols the whole read found, one at a time (what a search hit does).
        if let Ok(files) = &whole {
            for f in files.iter().take(8) {
                for s in f.symbols.iter().take(8) {
                    if let Ok(Some(found)) = reader.symbol(&f.path, s.id) {
                        assert_eq!(found.id, s.id, "{} in {}", s.id, f.path);
                    }
                }
            }
        }
        for path in ["", "a.py", "src/lib.rs", "zzz"] {
            let _ = reader.symbol(path, SymbolId(1));
        }
    }
});
