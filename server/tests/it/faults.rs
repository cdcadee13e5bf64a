//! Faults, tested with real processes and real files: `cc-server index` killed with
//! SIGKILL at many points of a run (and while records.bin's temporary file exists), then
//! the next commands must open the index and answer the old or the new content, never
//! fail; a graph left behind by a killed run must not be taken for a current one; a full
//! disk (a small tmpfs in a private mount namespace) must fail the run with an error that
//! names the file and keep the previous index, leaving nothing behind.
//!
//! No timing assertions: delays only choose where a kill lands; deadlines only catch a hang.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Modules of the generated repository, and functions in each.
const MODULES: usize = 240;
const WORKS: usize = 40;
/// records.bin's temporary file, while an index run writes it.
const PENDING: &str = cc_indexer::store::PENDING_FILE;
/// A run that takes longer than this has hung.
const DEADLINE: Duration = Duration::from_secs(120);

struct Env {
    tmp: tempfile::TempDir,
    data: PathBuf,
    repo: PathBuf,
}

fn env() -> Env {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let repo = tmp.path().join("fx");
    std::fs::create_dir_all(&repo).unwrap();
    Env { tmp, data, repo }
}

impl Env {
    fn dir(&self) -> PathBuf {
        self.data.join("repos/fx")
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_cc-server"));
        c.args(args).env("CC_DATA_DIR", &self.data).env_remove("CC_EMBED_MODEL").current_dir(self.tmp.path());
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    fn index_args(&self) -> Vec<&str> {
        vec!["index", self.repo.to_str().unwrap(), "--name", "fx", "--no-embed", "-q"]
    }

    /// An index run to the end; its JSON report.
    fn index(&self) -> Value {
        let mut args = self.index_args();
        args.push("--json");
        serde_json::from_str(&ok(&self.run(&args), "index")).unwrap()
    }

    fn spawn_index(&self) -> Child {
        self.command(&self.index_args()).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap()
    }
}

fn ok(out: &Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what} failed ({}): {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// Writes version `k` of the repository: every file changes from one version to the next.
/// `target` has a parameter named after the version; `core.use.use_v<k>` calls it, and so
/// does every module's `entry_<i>` in odd versions (in even ones they call nothing: the
/// graphs of two versions differ in their edge counts too).
fn write_version(root: &Path, k: u32) {
    let write = |rel: &str, text: String| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write("core/__init__.py", String::new());
    write("core/target.py", format!("def target(a, b{k}):\n    \"\"\"The target, version {k}.\"\"\"\n    return a\n"));
    write("core/helper.py", format!("def helper(x):\n    return x + {k}\n"));
    write("core/use.py", format!("from core.target import target\n\n\ndef use_v{k}():\n    return target(1, 2)\n"));
    for i in 0..MODULES {
        let mut text = String::from("from core.target import target\nfrom core.helper import helper\n\n\n");
        for j in 0..WORKS {
            text.push_str(&format!(
                "def work_v{k}_{i}_{j}(x):\n    \"\"\"Work item {j} of module {i}, version {k}.\"\"\"\n    y = x + {j}\n    return helper(y)\n\n\n"
            ));
        }
        let call = if k % 2 == 1 { "target(1, 2)" } else { "1" };
        text.push_str(&format!("def entry_{i}():\n    return {call}\n"));
        write(&format!("mods/m{i:03}.py"), text);
    }
}

/// The callers of `target` in version `k`.
fn expected_callers(k: u32) -> BTreeSet<String> {
    let mut c: BTreeSet<String> = [format!("core.use.use_v{k}")].into();
    if k % 2 == 1 {
        c.extend((0..MODULES).map(|i| format!("mods.m{i:03}.entry_{i}")));
    }
    c
}

/// The version the index answers with, checked with `symbol`, `search` and `callers`:
/// each must succeed, and all three must answer the same version.
fn answered_version(e: &Env) -> u32 {
    let sym: Value =
        serde_json::from_str(&ok(&e.run(&["symbol", "target", "--repo", "fx", "--json"]), "symbol")).unwrap();
    let sig = sym[0]["symbol"]["signature"].as_str().unwrap_or_else(|| panic!("no target: {sym}")).to_string();
    let k: u32 = sig
        .strip_prefix("def target(a, b")
        .and_then(|s| s.strip_suffix(')'))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("unexpected signature {sig}"));

    let hits: Value = serde_json::from_str(&ok(
        &e.run(&["search", "work item", "--repo", "fx", "--mode", "keyword", "--limit", "30", "--json"]),
        "search",
    ))
    .unwrap();
    let hits = hits.as_array().unwrap();
    assert!(!hits.is_empty(), "search found nothing");
    for h in hits {
        let name = h["symbol"]["name"].as_str().unwrap();
        assert!(name.starts_with(&format!("work_v{k}_")), "search answered {name}, symbol answered version {k}");
    }

    let callers: Value =
        serde_json::from_str(&ok(&e.run(&["callers", "core.target.target", "--repo", "fx", "--json"]), "callers"))
            .unwrap();
    let names: BTreeSet<String> =
        callers["results"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap().to_string()).collect();
    assert_eq!(names, expected_callers(k), "callers of target do not match version {k} (which symbol answered)");
    k
}

/// What a round waits for before it kills the run.
#[derive(Clone, Copy, Debug)]
enum KillAt {
    /// This long after the start.
    Delay(Duration),
    /// records.bin's temporary file exists, then this long.
    Pending(Duration),
    /// The search index has committed (its meta.json replaced) while records.bin's
    /// temporary file still exists.
    CommittedPending,
}

fn identity(p: &Path) -> Option<(u64, std::time::SystemTime)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(p).ok().map(|m| (m.ino(), m.modified().unwrap()))
}

/// Starts an index run and SIGKILLs it when `at` is reached; whether it was killed (it
/// may finish first).
fn kill_run(e: &Env, at: KillAt) -> bool {
    let dir = e.dir();
    let (pending, search_meta) = (dir.join(PENDING), dir.join("tantivy/meta.json"));
    let meta_before = identity(&search_meta);
    let mut child = e.spawn_index();
    let started = Instant::now();
    let mut seen_pending: Option<Instant> = None;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
            assert!(status.success(), "the index run failed on its own: {err}");
            return false;
        }
        assert!(started.elapsed() < DEADLINE, "the index run hung");
        let fire = match at {
            KillAt::Delay(d) => started.elapsed() >= d,
            KillAt::Pending(d) => {
                if seen_pending.is_none() && pending.exists() {
                    seen_pending = Some(Instant::now());
                }
                seen_pending.is_some_and(|t| t.elapsed() >= d)
            }
            KillAt::CommittedPending => pending.exists() && identity(&search_meta) != meta_before,
        };
        if fire {
            child.kill().unwrap();
            child.wait().unwrap();
            return true;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

fn leftovers(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with(".tmp") {
            found.push(name);
        }
    }
    found
}

/// The graph's node and edge counts of a fresh index of `repo` in a data dir of its own.
fn fresh_counts(e: &Env) -> (u64, u64) {
    let tmp = tempfile::tempdir().unwrap();
    let fresh = Env { data: tmp.path().join("data"), tmp, repo: e.repo.clone() };
    let r = fresh.index();
    (r["graph"]["nodes"].as_u64().unwrap(), r["graph"]["edges"].as_u64().unwrap())
}

#[test]
fn an_index_run_killed_anywhere_leaves_an_index_that_answers_old_or_new() {
    let e = env();
    let seed = std::env::var("CC_FAULTS_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| fastrand::u64(..));
    eprintln!("seed {seed} (CC_FAULTS_SEED reproduces the kill points)");
    let mut rng = fastrand::Rng::with_seed(seed);
    write_version(&e.repo, 1);
    let started = Instant::now();
    e.index();
    let full = started.elapsed();
    eprintln!("a full run: {full:?}");
    assert_eq!(answered_version(&e), 1);

    let mut current = 1;
    let (mut kills, rounds) = (0, 24);
    for round in 0..rounds {
        let k = round + 2;
        write_version(&e.repo, k);
        let at = match round % 3 {
            0 => KillAt::Delay(full.mul_f64(rng.f64() * 1.1)),
            1 => KillAt::Pending(Duration::from_micros(rng.u64(0..3000))),
            _ => KillAt::CommittedPending,
        };
        let killed = kill_run(&e, at);
        kills += usize::from(killed);
        let answered = answered_version(&e);
        eprintln!("round {round}: {at:?}, killed: {killed}, answered version {answered}");
        assert!(
            answered == current || answered == k,
            "round {round} ({at:?}, killed: {killed}): answered version {answered}, expected {current} or {k}"
        );
        current = answered;
    }
    eprintln!("{kills} of {rounds} runs killed");
    assert!(kills > rounds as usize / 2, "most runs should have been killed ({kills} of {rounds})");

    // A run to the end brings everything up to date, the call graph included.
    let last = rounds + 2;
    write_version(&e.repo, last);
    e.index();
    assert_eq!(answered_version(&e), last);
    let again = e.index();
    assert_eq!(again["parsed"], 0);
    let counts = (again["graph"]["nodes"].as_u64().unwrap(), again["graph"]["edges"].as_u64().unwrap());
    assert_eq!(counts, fresh_counts(&e), "the saved graph is not the graph of the current records");
    assert_eq!(leftovers(&e.dir()), Vec::<String>::new());
}

/// A run killed after it put its records in place but before it saved the call graph
/// leaves a graph of the previous records. Whether it is current must not be judged by
/// modification times: here the graph's are later than the records' (a clock stepped back
/// between the runs, or a file system with coarse timestamps, or a restored backup). The
/// next run must still bring the graph up to date, and commands meanwhile must answer
/// with the records, not with the stale graph.
#[test]
fn a_graph_left_by_a_killed_run_is_brought_up_to_date() {
    let e = env();
    write_version(&e.repo, 1);
    e.index();
    let dir = e.dir();
    let (records, graph) = (dir.join("records.bin"), dir.join("graph.bin"));
    let mut k = 1;
    let killed_between = (0..10).any(|_| {
        k += 1;
        write_version(&e.repo, k);
        let (records_before, graph_before) = (identity(&records), identity(&graph));
        let mut child = e.spawn_index();
        let started = Instant::now();
        loop {
            if child.try_wait().unwrap().is_some() {
                return false;
            }
            assert!(started.elapsed() < DEADLINE, "the index run hung");
            if identity(&records) != records_before {
                child.kill().unwrap();
                child.wait().unwrap();
                return identity(&graph) == graph_before;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
    });
    assert!(killed_between, "no run was killed between writing its records and its graph");
    // The graph's files look newer than the records.
    let later = std::time::SystemTime::now() + Duration::from_secs(3600);
    for f in ["graph.bin", "graph.sum"] {
        std::fs::File::options().write(true).open(dir.join(f)).unwrap().set_modified(later).unwrap();
    }
    assert_eq!(answered_version(&e), k, "commands must answer with the records, not the stale graph");
    let run = e.index();
    assert_eq!(run["parsed"], 0, "{run}");
    let counts = (run["graph"]["nodes"].as_u64().unwrap(), run["graph"]["edges"].as_u64().unwrap());
    assert_eq!(counts, fresh_counts(&e), "the run reported (and kept) the stale graph: {run}");
    assert_eq!(answered_version(&e), k);
}

/// The tool the full-disk test needs: a private mount namespace (no privileges, nothing to
/// clean up).
fn unshare_works() -> Result<(), String> {
    let out = Command::new("unshare")
        .args(["--mount", "--map-root-user", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt && echo ok"])
        .output()
        .map_err(|e| format!("cannot run unshare (util-linux): {e}"))?;
    if String::from_utf8_lossy(&out.stdout).trim() == "ok" {
        Ok(())
    } else {
        Err(format!(
            "unshare --mount --map-root-user cannot mount a tmpfs here (user namespaces off?): {}",
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// Writes `n` Python files of `defs` documented functions each under `root`.
fn python_files(root: &Path, prefix: &str, n: usize, defs: usize) {
    std::fs::create_dir_all(root).unwrap();
    for i in 0..n {
        let text: String = (0..defs)
            .map(|j| {
                format!(
                    "def {prefix}_{i}_{j}(x):\n    \"\"\"The {prefix} function {j} of file {i}.\"\"\"\n    return {prefix}_{i}_{}(x)\n\n\n",
                    (j + 1) % defs
                )
            })
            .collect();
        std::fs::write(root.join(format!("{prefix}{i}.py")), text).unwrap();
    }
}

/// The data directory on a 3 MB tmpfs (the workspace store and a small index fit): a small
/// repository is indexed, then it grows past what fits. The run must fail saying the disk is
/// full and where, leave the previous index answering and no file behind; once there is room,
/// a run succeeds.
#[test]
fn a_full_disk_fails_the_run_clearly_and_keeps_the_previous_index() {
    unshare_works().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let (repo, extra, data, out) =
        (tmp.path().join("fx"), tmp.path().join("extra"), tmp.path().join("data"), tmp.path().join("out"));
    python_files(&repo, "small", 20, 20);
    python_files(&extra, "big", 1500, 30);
    for d in [&data, &out] {
        std::fs::create_dir_all(d).unwrap();
    }
    // Every step runs inside one private mount namespace, where the tmpfs exists; each
    // step's output, error and exit code go to files outside it.
    let script = r#"
set -u
out=$1 data=$2 repo=$3 extra=$4 bin=$5
mount -t tmpfs -o size=3072k tmpfs "$data" || exit 97
export CC_DATA_DIR="$data"
step() { name=$1; shift; "$@" >"$out/$name.out" 2>"$out/$name.err"; echo $? >"$out/$name.rc"; }
files() { (cd "$data" && find . -type f | sort) >"$out/$1.files"; }
step index1 "$bin" index "$repo" --name fx --no-embed -q
files before
cp -r "$extra/." "$repo/"
step index2 "$bin" index "$repo" --name fx --no-embed -q
files after
step old "$bin" symbol small_3_4 --repo fx --json
step search "$bin" search "small function" --repo fx --mode keyword --json
step new "$bin" symbol big_3_4 --repo fx
mount -o remount,size=65536k "$data" || exit 98
step index3 "$bin" index "$repo" --name fx --no-embed -q
step new3 "$bin" symbol big_3_4 --repo fx --json
step callers3 "$bin" callers big_3_4 --repo fx --json
"#;
    let status = Command::new("unshare")
        .args(["--mount", "--map-root-user", "sh", "-c", script, "sh"])
        .args([&out, &data, &repo, &extra])
        .arg(env!("CARGO_BIN_EXE_cc-server"))
        .env_remove("CC_EMBED_MODEL")
        .status()
        .unwrap();
    assert!(status.success(), "the namespace script failed: {status}");
    let read = |name: &str| std::fs::read_to_string(out.join(name)).unwrap_or_default();
    let step = |name: &str| -> (i32, String, String) {
        (
            read(&format!("{name}.rc")).trim().parse().unwrap(),
            read(&format!("{name}.out")),
            read(&format!("{name}.err")),
        )
    };
    let ok = |name: &str| -> Value {
        let (rc, out, err) = step(name);
        assert_eq!(rc, 0, "{name}: {out}{err}");
        serde_json::from_str(&out).unwrap_or(Value::Null)
    };

    ok("index1");
    let (rc, _, err) = step("index2");
    assert_eq!(rc, 1, "the run that does not fit must fail: {err}");
    assert!(err.contains("No space left on device") && err.contains("the disk is full"), "{err}");
    assert!(err.contains(&format!("{}/repos/fx/", data.display())), "the error must say where: {err}");
    assert_eq!(read("before.files"), read("after.files"), "the failed run left files behind");

    // The previous index answers, without the new files.
    assert_eq!(ok("old")[0]["symbol"]["name"], "small_3_4");
    assert!(ok("search").as_array().is_some_and(|h| !h.is_empty()));
    let (rc, _, err) = step("new");
    assert_eq!(rc, 2, "an unknown symbol is bad input: {err}");
    assert!(err.contains("no symbol named 'big_3_4'"), "{err}");

    // With room, the next run indexes everything.
    ok("index3");
    assert_eq!(ok("new3")[0]["symbol"]["name"], "big_3_4");
    let callers = ok("callers3");
    assert_eq!(callers["results"][0]["name"], "big3.big_3_3", "{callers}");
}
