//! Embeds the workspace store's migrations: `migrations/<area>/NNNN_name.sql` (both
//! backends), or `NNNN_name.sqlite.sql` + `NNNN_name.postgres.sql` where the two must
//! differ. Adding a migration is adding a file; `store::migrations::ALL` lists them.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    // Read when the script runs, not when it was compiled: cargo reuses a compiled build
    // script for another checkout of this package sharing the target folder, and a path
    // baked in would read (or miss) the other checkout's migrations.
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let root = Path::new(&manifest).join("migrations");
    println!("cargo::rerun-if-changed={}", root.display());
    let mut areas: Vec<_> = std::fs::read_dir(&root).expect("server/migrations").flatten().collect();
    areas.sort_by_key(|e| e.file_name());
    let mut out = String::from("&[\n");
    for area in areas {
        let name = area.file_name().into_string().expect("an area folder is UTF-8");
        println!("cargo::rerun-if-changed={}", area.path().display());
        let mut files: Vec<String> = std::fs::read_dir(area.path())
            .expect("an area folder")
            .flatten()
            .filter_map(|f| f.file_name().into_string().ok())
            .filter(|f| f.ends_with(".sql"))
            .collect();
        files.sort();
        let mut seen = std::collections::BTreeMap::<i64, (String, Option<String>, Option<String>)>::new();
        for f in &files {
            let (num, rest) = f.split_once('_').unwrap_or_else(|| panic!("{name}/{f}: expected NNNN_name.sql"));
            let version: i64 = num.parse().unwrap_or_else(|_| panic!("{name}/{f}: expected a number before '_'"));
            let (desc, backend) = match rest.strip_suffix(".sql").expect(".sql") {
                r if r.ends_with(".sqlite") => (r.trim_end_matches(".sqlite"), Some("sqlite")),
                r if r.ends_with(".postgres") => (r.trim_end_matches(".postgres"), Some("postgres")),
                r => (r, None),
            };
            let path = area.path().join(f).display().to_string();
            let e = seen.entry(version).or_insert_with(|| (desc.to_string(), None, None));
            assert_eq!(e.0, desc, "{name}: migration {version} has two names");
            match backend {
                None => {
                    assert!(e.1.is_none() && e.2.is_none(), "{name}/{f}: migration {version} given twice");
                    e.1 = Some(path.clone());
                    e.2 = Some(path);
                }
                Some("sqlite") => e.1 = Some(path),
                Some(_) => e.2 = Some(path),
            }
        }
        for (i, (version, (desc, sqlite, postgres))) in seen.into_iter().enumerate() {
            assert_eq!(version, i as i64 + 1, "{name}: migrations are numbered 1, 2, 3, … without gaps");
            let sqlite = sqlite.unwrap_or_else(|| panic!("{name}: migration {version} has no SQLite text"));
            let postgres = postgres.unwrap_or_else(|| panic!("{name}: migration {version} has no PostgreSQL text"));
            writeln!(
                out,
                "    Embedded {{ area: {name:?}, version: {version}, name: {desc:?}, sqlite: include_str!({sqlite:?}), postgres: include_str!({postgres:?}) }},"
            )
            .unwrap();
        }
    }
    out.push_str("]\n");
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("migrations.rs");
    std::fs::write(dest, out).unwrap();
}
