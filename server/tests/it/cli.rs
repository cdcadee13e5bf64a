//! The command line through the built binary: index, search, symbol, repos, --watch, and
//! the error messages and exit codes a person acts on.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

struct Env {
    _tmp: tempfile::TempDir,
    data: PathBuf,
    repo: PathBuf,
}

fn env() -> Env {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let repo = tmp.path().join("shop");
    let files = [
        ("billing/invoice.py", "class InvoiceBuilder:\n    \"\"\"Builds invoices.\"\"\"\n    def add_line_item(self, sku, qty):\n        return compute_total(qty)\n\ndef compute_total(qty):\n    return qty * 2\n"),
        ("web/cart.ts", "export function renderCart(items: string[]): string {\n  return items.join(',');\n}\n"),
        ("core/src/lib.rs", "/// Parses a price.\npub fn parse_price(s: &str) -> u64 { s.len() as u64 }\n"),
        ("README.md", "# shop\n"),
    ];
    write_tree(&repo, files);
    Env { _tmp: tmp, data, repo }
}

fn cc(env: &Env, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cc-server"))
        .args(args)
        .env("CC_DATA_DIR", &env.data)
        .current_dir(env.data.parent().unwrap())
        .output()
        .unwrap()
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn fails(out: &Output, code: i32) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "stdout: {}\nstderr: {err}", String::from_utf8_lossy(&out.stdout));
    err
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Writes each (path, text) under `root`, making the folders.
fn write_tree<S: AsRef<str>>(root: &Path, files: impl IntoIterator<Item = (&'static str, S)>) {
    for (rel, text) in files {
        let f = root.join(rel);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, text.as_ref()).unwrap();
    }
}

/// The callees of `symbol` that `cc` (cc-server on some data dir) answers: (name, path), sorted.
fn callees_by_path(cc: impl Fn(&[&str]) -> Output, symbol: &str) -> Vec<(String, String)> {
    let v: serde_json::Value = serde_json::from_str(&ok(&cc(&["callees", symbol, "--json"]))).unwrap();
    let mut got: Vec<(String, String)> = v["results"]
        .as_array()
        .unwrap_or_else(|| panic!("{v}"))
        .iter()
        .map(|r| {
            (r["name"].as_str().unwrap().to_string(), r["symbol"]["path"].as_str().unwrap_or_default().to_string())
        })
        .collect();
    got.sort();
    got
}

#[test]
fn index_then_search_symbol_and_repos() {
    let e = env();
    let out = ok(&cc(&e, &["index", path(&e.repo)]));
    assert!(out.contains("indexed 'shop'"), "{out}");
    assert!(out.contains("3 files"), "{out}");
    assert!(out.contains("Python") && out.contains("TypeScript") && out.contains("Rust"), "{out}");
    assert!(out.contains("MB/s"), "{out}");

    let out = ok(&cc(&e, &["search", "line item", "--repo", "shop"]));
    assert!(out.contains("billing/invoice.py:3"), "{out}");
    assert!(out.contains("add_line_item"), "{out}");

    let json: serde_json::Value = serde_json::from_str(&ok(&cc(&e, &["search", "cart", "--json"]))).unwrap();
    assert_eq!(json[0]["symbol"]["name"], "renderCart");
    assert_eq!(json[0]["symbol"]["path"], "web/cart.ts");
    assert_eq!(json[0]["symbol"]["span"]["start_line"], 1);

    let out = ok(&cc(&e, &["search", "price", "--lang", "python"]));
    assert!(out.contains("no matches"), "{out}");
    let out = ok(&cc(&e, &["search", "total", "--kind", "function", "--path", "billing"]));
    assert!(out.contains("billing/invoice.py:6"), "{out}");

    let out = ok(&cc(&e, &["symbol", "compute_total"]));
    assert!(out.contains("billing/invoice.py:6"), "{out}");
    assert!(out.contains("def compute_total(qty)"), "{out}");
    let json: serde_json::Value = serde_json::from_str(&ok(&cc(&e, &["symbol", "parse_price", "--json"]))).unwrap();
    assert_eq!(json[0]["symbol"]["doc"], "Parses a price.");

    let out = ok(&cc(&e, &["repos"]));
    assert!(out.contains("shop") && out.contains(path(&e.repo.canonicalize().unwrap())), "{out}");
    let json: serde_json::Value = serde_json::from_str(&ok(&cc(&e, &["repos", "--json"]))).unwrap();
    assert_eq!(json[0]["stats"]["files"], 3);

    // A second run parses nothing.
    let out = ok(&cc(&e, &["index", path(&e.repo), "--json"]));
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["parsed"], 0);
    assert_eq!(report["unchanged"], 3);
}

/// `cc-server search … | head -1`: the reader is gone before anything is written; the
/// command ends on the closed pipe without a panic on stderr.
#[test]
fn output_into_a_closed_pipe_ends_quietly() {
    let env = env();
    ok(&cc(&env, &["index", "-q", path(&env.repo)]));
    for args in [&["search", "invoice"][..], &["symbol", "compute_total"], &["repos"], &["callers", "compute_total"]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_cc-server"))
            .args(args)
            .env("CC_DATA_DIR", &env.data)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked") && !stderr.contains("Broken pipe"), "{args:?}: {stderr}");
    }
}

#[test]
fn errors_say_what_to_do_and_exit_non_zero() {
    let e = env();
    let err = fails(&cc(&e, &["index", "/no/such/dir"]), 2);
    assert!(err.contains("no such directory"), "{err}");
    let err = fails(&cc(&e, &["index", path(&e.repo.join("README.md"))]), 2);
    assert!(err.contains("is a file"), "{err}");
    let err = fails(&cc(&e, &["search", "x", "--repo", "nope"]), 2);
    assert!(err.contains("nothing is indexed yet"), "{err}");
    ok(&cc(&e, &["index", path(&e.repo)]));
    let err = fails(&cc(&e, &["search", "x", "--repo", "nope"]), 2);
    assert!(err.contains("no repository named 'nope'") && err.contains("indexed: shop"), "{err}");
    let err = fails(&cc(&e, &["search", "x", "--lang", "cobol"]), 2);
    assert!(err.contains("unknown language 'cobol'"), "{err}");
    let err = fails(&cc(&e, &["index", path(&e.repo), "--name", "bad/name"]), 2);
    assert!(err.contains("invalid repository name"), "{err}");
    let err = fails(&cc(&e, &["symbol", "no_such_symbol"]), 2);
    assert!(err.contains("no symbol named"), "{err}");

    // Another format version: refused with the command that fixes it, then fixed by it.
    let meta = e.data.join("repos/shop/meta.json");
    let text = std::fs::read_to_string(&meta).unwrap();
    std::fs::write(
        &meta,
        text.replacen(&format!("\"format_version\": {}", cc_indexer::FORMAT_VERSION), "\"format_version\": 0", 1),
    )
    .unwrap();
    let err = fails(&cc(&e, &["search", "cart", "--repo", "shop"]), 3);
    assert!(err.contains("format version 0") && err.contains("cc-server index"), "{err}");
    let out = ok(&cc(&e, &["index", path(&e.repo)]));
    assert!(out.contains("indexed 'shop'"));
    ok(&cc(&e, &["search", "cart", "--repo", "shop"]));
}

#[test]
fn help_explains_every_command() {
    let e = env();
    let out = ok(&cc(&e, &["--help"]));
    for cmd in ["index", "search", "symbol", "repos", "--data-dir"] {
        assert!(out.contains(cmd), "--help lacks {cmd}:\n{out}");
    }
    let out = ok(&cc(&e, &["index", "--help"]));
    assert!(out.contains("--watch") && out.contains(".gitignore"), "{out}");
}

/// Where browser rigs run is checked at start: a bad --webdriver-url, header or
/// `[webdriver.<engine>]` table fails `serve` and `mcp` with exit code 2, naming the flag, the
/// variable or the table and what was expected, and never echoing a header's value.
#[test]
fn bad_webdriver_endpoints_fail_the_start_naming_the_flag() {
    let e = env();
    let out = ok(&cc(&e, &["serve", "--help"]));
    assert!(
        out.contains("--webdriver-url") && out.contains("CC_WEBDRIVER_URL") && out.contains("Selenium Grid"),
        "{out}"
    );
    assert!(out.contains("--webdriver-header") && out.contains("CC_WEBDRIVER_HEADER"), "{out}");
    let err = fails(&cc(&e, &["mcp", "--webdriver-url", "safari=http://grid:4444"]), 2);
    assert!(err.contains("--webdriver-url / CC_WEBDRIVER_URL: unknown engine 'safari'"), "{err}");
    let err = fails(&cc(&e, &["serve", "--port", "0", "--webdriver-url", "http://grid:4444/?token=sekrit"]), 2);
    assert!(err.contains("give a token as a header") && !err.contains("sekrit"), "{err}");
    let out = Command::new(env!("CARGO_BIN_EXE_cc-server"))
        .args(["mcp"])
        .env("CC_DATA_DIR", &e.data)
        .env("CC_WEBDRIVER_HEADER", "Authorization: Bearer sekrit")
        .output()
        .unwrap();
    let err = fails(&out, 2);
    assert!(
        err.contains("--webdriver-header / CC_WEBDRIVER_HEADER") && err.contains("no engine has a remote endpoint"),
        "{err}"
    );
    assert!(!err.contains("sekrit"), "{err}");
    std::fs::create_dir_all(&e.data).unwrap();
    std::fs::write(e.data.join("config.toml"), "[webdriver.firefox]\nheaders = { X-Key = \"sekrit\" }\n").unwrap();
    let err = fails(&cc(&e, &["mcp"]), 2);
    assert!(err.contains("[webdriver.firefox] has no url") && !err.contains("sekrit"), "{err}");
    std::fs::write(e.data.join("config.toml"), "[webdriver.firefox]\nurl = \"ftp://grid/\"\n").unwrap();
    let err = fails(&cc(&e, &["tools"]), 1);
    assert!(err.contains("[webdriver.firefox] ftp://grid/: an http or https URL"), "{err}");
}

/// Permission denied: the test runs as root in CI, where every file is readable, so the
/// unreadable file is made unreadable for real by running the binary as `nobody`.
#[test]
fn unreadable_files_are_reported_not_fatal() {
    let e = env();
    let secret = e.repo.join("billing/secret.py");
    std::fs::write(&secret, "def hidden():\n    pass\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o000)).unwrap();
    let root = e.data.parent().unwrap();
    for p in [
        root.to_path_buf(),
        e.repo.clone(),
        e.repo.join("billing"),
        e.repo.join("web"),
        e.repo.join("core"),
        e.repo.join("core/src"),
    ] {
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o777)).unwrap();
    }
    for f in ["billing/invoice.py", "web/cart.ts", "core/src/lib.rs", "README.md"] {
        std::fs::set_permissions(e.repo.join(f), std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false);
    let mut cmd = if is_root {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"]).arg(env!("CARGO_BIN_EXE_cc-server"));
        c
    } else {
        Command::new(env!("CARGO_BIN_EXE_cc-server"))
    };
    let out = cmd
        .args(["index", path(&e.repo), "--json"])
        .env("CC_DATA_DIR", &e.data)
        .current_dir("/")
        .output()
        .expect("setpriv (util-linux) runs the binary as nobody");
    let stdout = ok(&out);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["stats"]["files"], 3, "{stdout}");
    assert_eq!(report["stats"]["skipped"]["unreadable"], 1, "{stdout}");
    let diags = report["diagnostics"].as_array().unwrap();
    assert!(diags.iter().any(|d| d["path"] == "billing/secret.py"), "{stdout}");
}

#[test]
fn watch_reindexes_when_a_file_changes() {
    let e = env();
    let log = e.data.parent().unwrap().join("watch.out");
    let mut child = Command::new(env!("CARGO_BIN_EXE_cc-server"))
        .args(["index", path(&e.repo), "--watch"])
        .env("CC_DATA_DIR", &e.data)
        .stdout(std::fs::File::create(&log).unwrap())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait for the first run, then change a file and wait for the symbol to appear.
    let found = |name: &str| cc(&e, &["symbol", name, "--repo", "shop"]).status.success();
    let wait = |what: &dyn Fn() -> bool| {
        (0..300).any(|_| {
            what() || {
                std::thread::sleep(std::time::Duration::from_millis(100));
                false
            }
        })
    };
    assert!(wait(&|| found("compute_total")), "the first run never finished");
    // No pause: the watch starts before the first run, so a change made the moment
    // its index answers is not lost.
    std::fs::write(e.repo.join("billing/refund.py"), "def issue_refund():\n    pass\n").unwrap();
    let appeared = wait(&|| found("issue_refund"));
    let said = wait(&|| std::fs::read_to_string(&log).unwrap_or_default().contains("re-indexed"));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(appeared && said, "--watch did not pick up the new file");
    // The first run's report, then one line per change (not the whole report again).
    let out = std::fs::read_to_string(&log).unwrap();
    let after: Vec<&str> = out.lines().skip_while(|l| !l.starts_with("re-indexed")).collect();
    assert!(!after.is_empty() && after.iter().all(|l| l.starts_with("re-indexed 'shop'")), "{out}");
    assert!(after[0].contains("1 added"), "{out}");
}

#[test]
fn callers_callees_and_impact_print_file_and_line() {
    let e = env();
    std::fs::write(e.repo.join("billing/checkout.py"), "from billing.invoice import InvoiceBuilder\n\ndef checkout():\n    InvoiceBuilder().add_line_item('x', 1)\n\ndef compute_total(x):\n    return x\n").unwrap();
    std::fs::write(
        e.repo.join("billing/twice.py"),
        "from billing.invoice import compute_total\n\ndef twice(a, b):\n    return compute_total(a) + compute_total(b)\n",
    )
    .unwrap();
    ok(&cc(&e, &["index", path(&e.repo)]));
    // Two calls on one line are one site.
    let v: serde_json::Value =
        serde_json::from_str(&ok(&cc(&e, &["callers", "billing.invoice.compute_total", "--json"]))).unwrap();
    let twice = v["results"].as_array().unwrap().iter().find(|r| r["name"] == "billing.twice.twice");
    assert_eq!(twice.map(|r| r["sites"].clone()), Some(serde_json::json!(["billing/twice.py:4"])), "{v}");
    let out = ok(&cc(&e, &["callers", "billing.invoice.compute_total"]));
    assert!(
        out.contains("billing/invoice.py:3") && out.contains("billing.invoice.InvoiceBuilder.add_line_item"),
        "{out}"
    );
    assert!(out.contains("at billing/invoice.py:4"), "{out}");
    let out = ok(&cc(&e, &["callees", "billing.invoice.InvoiceBuilder.add_line_item"]));
    assert!(out.contains("billing/invoice.py:6") && out.contains("billing.invoice.compute_total"), "{out}");
    let v: serde_json::Value =
        serde_json::from_str(&ok(&cc(&e, &["impact", "billing.invoice.compute_total", "--depth", "2", "--json"])))
            .unwrap();
    let names: Vec<&str> = v["results"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["billing.invoice.InvoiceBuilder.add_line_item", "billing.twice.twice", "billing.checkout.checkout"],
        "{v}"
    );
    assert_eq!(v["results"][2]["distance"], 2);
    assert_eq!(v["results"][2]["sites"][0], "billing/checkout.py:4");
    // A plain name with two symbols lists them instead of guessing.
    let err = fails(&cc(&e, &["callers", "compute_total"]), 2);
    assert!(
        err.contains("matches 2 symbols")
            && err.contains("billing/checkout.py:6")
            && err.contains("billing/invoice.py:6"),
        "{err}"
    );
    let err = fails(&cc(&e, &["callers", "nothing_like_this"]), 2);
    assert!(err.contains("no symbol named"), "{err}");

    // A query walks graph.map in place: it answers the same with graph.bin gone (what an
    // update needs, never read by a query), and with the map gone (the graph loaded instead).
    let dir = e.data.join("repos/shop");
    let query = ["impact", "billing.invoice.compute_total", "--depth", "2", "--json"];
    let bin = std::fs::read(dir.join("graph.bin")).unwrap();
    std::fs::remove_file(dir.join("graph.bin")).unwrap();
    let mapped: serde_json::Value = serde_json::from_str(&ok(&cc(&e, &query))).unwrap();
    assert_eq!(mapped, v, "the map alone answered otherwise");
    std::fs::write(dir.join("graph.bin"), bin).unwrap();
    let map = dir.join(cc_graph::MAP_FILE);
    std::fs::remove_file(&map).unwrap();
    let loaded: serde_json::Value = serde_json::from_str(&ok(&cc(&e, &query))).unwrap();
    assert_eq!(loaded, v, "graph.bin alone answered otherwise");
    // The next index run, with nothing else changed, writes the map again.
    ok(&cc(&e, &["index", path(&e.repo)]));
    assert!(map.is_file(), "the index run did not write graph.map again");
}

/// What the graph knows apart from what it guesses: a method of an unknown receiver is a
/// possible call (listed apart, walked with --possible), a function passed as a value is a
/// reference (walked with --references), recursion lists the start again; `graph export`
/// writes every edge; `symbol --path` lists a file's symbols without a query.
#[test]
fn graph_answers_keep_guesses_and_references_apart_and_export_every_edge() {
    let e = env();
    std::fs::create_dir_all(e.repo.join("tools")).unwrap();
    std::fs::write(
        e.repo.join("tools/walker.py"),
        "def helper(x):\n    return x\n\n\ndef walk(n):\n    if n:\n        walk(n - 1)\n\n\nclass A:\n    def run(self):\n        pass\n\n\nclass B:\n    def run(self):\n        pass\n\n\ndef go(o, xs):\n    o.run()\n    return sorted(xs, key=helper)\n",
    )
    .unwrap();
    ok(&cc(&e, &["index", path(&e.repo)]));
    let json = |args: &[&str]| -> serde_json::Value { serde_json::from_str(&ok(&cc(&e, args))).unwrap() };
    let names = |v: &serde_json::Value| -> Vec<String> {
        v["results"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap().to_string()).collect()
    };
    let v = json(&["callees", "tools.walker.go", "--json"]);
    let got = names(&v);
    assert!(!got.iter().any(|n| n.ends_with(".run") || n.ends_with("helper")), "guesses or references as facts: {v}");
    assert_eq!(v["possible"].as_array().unwrap().len(), 1, "{v}");
    let p = &v["possible"][0];
    assert_eq!(
        (p["via"].as_str(), p["candidates"].as_u64(), p["sites"][0].as_str()),
        (Some("tools.walker.go"), Some(2), Some("tools/walker.py:21"))
    );
    let ends: Vec<&str> = p["symbols"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(ends, ["tools.walker.A.run", "tools.walker.B.run"], "{v}");
    assert!(p["symbols"][0]["id"].as_str().unwrap().len() == 16, "{v}");
    let text = ok(&cc(&e, &["callees", "tools.walker.go"]));
    assert!(text.contains("undecided calls") && text.contains("one of 2: tools.walker.A.run"), "{text}");
    // --possible walks them, marked; --references adds the function passed as a key.
    let v = json(&["callees", "tools.walker.go", "--possible", "--json"]);
    let runs: Vec<&serde_json::Value> =
        v["results"].as_array().unwrap().iter().filter(|r| r["name"].as_str().unwrap().ends_with(".run")).collect();
    assert!(runs.len() == 2 && runs.iter().all(|r| r["ambiguous"] == true), "{v}");
    assert!(v["possible"].as_array().unwrap().is_empty(), "{v}");
    let v = json(&["callees", "tools.walker.go", "--references", "--json"]);
    let helper = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "tools.walker.helper")
        .unwrap_or_else(|| panic!("{v}"));
    assert_eq!((helper["kind"].as_str(), helper["external"].as_bool()), (Some("reference"), Some(false)), "{v}");
    // Recursion: the start is listed, marked, and not walked again.
    let v = json(&["callers", "tools.walker.walk", "--depth", "3", "--json"]);
    assert_eq!(names(&v), ["tools.walker.walk"], "{v}");
    assert_eq!((v["results"][0]["recursive"].as_bool(), v["results"][0]["kind"].as_str()), (Some(true), Some("call")));
    assert!(ok(&cc(&e, &["callers", "tools.walker.walk"])).contains("[recursive]"));
    // Export: every edge, both ends' ids in the form the commands take.
    let jsonl = ok(&cc(&e, &["graph", "export", "--format", "jsonl"]));
    let edges: Vec<serde_json::Value> = jsonl.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let reference = edges
        .iter()
        .find(|x| x["from_name"] == "tools.walker.go" && x["to_name"] == "tools.walker.helper")
        .unwrap_or_else(|| panic!("{jsonl}"));
    assert_eq!(reference["kind"], "reference");
    let id = reference["to"].as_str().unwrap();
    assert!(ok(&cc(&e, &["callers", id, "--references"])).contains("tools.walker.go"));
    let csv = ok(&cc(&e, &["graph", "export", "--format", "csv"]));
    assert!(csv.starts_with("from,from_name,to,to_name,kind,") && csv.lines().count() == edges.len() + 1, "{csv}");
    assert!(ok(&cc(&e, &["graph", "export", "--format", "dot"])).starts_with("digraph"));
    let err = fails(&cc(&e, &["graph", "export", "--format", "xml"]), 2);
    assert!(err.contains("jsonl") && err.contains("csv"), "{err}");
    // A file's symbols without a query; with a name, those of that name in it.
    let out = ok(&cc(&e, &["symbol", "--path", "tools/walker.py"]));
    let order: Vec<usize> = ["tools.walker.helper", "tools.walker.walk", "tools.walker.A.run", "tools.walker.go"]
        .iter()
        .map(|n| out.find(n).unwrap_or_else(|| panic!("{n} missing: {out}")))
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "not in line order: {out}");
    assert!(!out.contains("billing"), "{out}");
    let v: serde_json::Value =
        serde_json::from_str(&ok(&cc(&e, &["symbol", "run", "--path", "tools", "--json"]))).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 2, "{v}");
    let err = fails(&cc(&e, &["symbol", "--path", "tools/nope.py"]), 2);
    assert!(err.contains("no symbols defined in 'tools/nope.py'"), "{err}");
}

/// What a new user runs into in the first hour, each answered with what is going on.
#[test]
fn a_first_hour_is_told_what_is_going_on() {
    let e = env();
    // Nothing indexed: said, with what to run (bad input: exit 2).
    let err = fails(&cc(&e, &["search", "cart"]), 2);
    assert!(err.contains("nothing is indexed yet: run `cc-server index PATH`") && !err.contains("(any)"), "{err}");
    // CC_DATA_DIR set: no usage line asks for --data-dir.
    let err = fails(&cc(&e, &["search"]), 2);
    assert!(err.contains("Usage: cc-server search") && !err.contains("--data-dir <DIR>"), "{err}");
    // A folder without a supported file: indexed, with a warning.
    let empty = e.data.parent().unwrap().join("notes");
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::write(empty.join("todo.txt"), "buy milk\n").unwrap();
    let out = cc(&e, &["index", path(&empty)]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("holds no file of a supported language (1 other files)"), "{err}");
    // No terminal: progress is a line every CC_PROGRESS_EVERY seconds, in MB as the summary.
    let out = Command::new(env!("CARGO_BIN_EXE_cc-server"))
        .args(["index", path(&e.repo)])
        .env("CC_DATA_DIR", &e.data)
        .env("CC_PROGRESS_EVERY", "0")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && err.lines().any(|l| l.starts_with("indexing: ") && l.contains(" kB of ")), "{err}");
    // A subfolder of an indexed repository: a second, overlapping index only with --name.
    let err = fails(&cc(&e, &["index", path(&e.repo.join("billing"))]), 2);
    assert!(err.contains("is inside the indexed repository 'shop'") && err.contains("--name"), "{err}");
    ok(&cc(&e, &["index", path(&e.repo.join("billing")), "--name", "billing-only"]));
    ok(&cc(&e, &["index", path(&e.repo.join("billing"))]));
    // A --path that is not in the repository, and an explicit semantic search without a model.
    let err = fails(&cc(&e, &["search", "cart", "--repo", "shop", "--path", "no/such/dir"]), 2);
    assert!(err.contains("'no/such/dir' is no folder or file of shop"), "{err}");
    let out = cc(&e, &["search", "cart", "--repo", "shop", "--path", "web"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && err.lines().count() == 1 && err.len() < 120, "{err}");
    let err = fails(&cc(&e, &["search", "cart", "--repo", "shop", "--mode", "semantic"]), 1);
    assert!(err.contains("--mode semantic: semantic search is unavailable"), "{err}");
    // Scores in JSON without float noise.
    let v: serde_json::Value =
        serde_json::from_str(&ok(&cc(&e, &["search", "cart", "--repo", "shop", "--json"]))).unwrap();
    let score = v[0]["score"].to_string();
    assert!(score.len() <= 12, "{score}");
    // remove: the index goes (the repository stays), and so does its name from every list.
    let out = ok(&cc(&e, &["remove", "billing-only"]));
    assert!(out.contains("removed the index 'billing-only'") && out.contains("untouched"), "{out}");
    assert!(e.repo.join("billing/invoice.py").is_file());
    assert!(!ok(&cc(&e, &["repos"])).contains("billing-only"));
    let err = fails(&cc(&e, &["remove", "billing-only"]), 2);
    assert!(err.contains("no repository named 'billing-only'") && err.contains("shop"), "{err}");
    // The name-taken error names the command that frees the name.
    let other = e.data.parent().unwrap().join("other/shop");
    std::fs::create_dir_all(&other).unwrap();
    let err = fails(&cc(&e, &["index", path(&other)]), 2);
    assert!(err.contains("`cc-server remove shop`"), "{err}");
}

/// Names are what the languages call them: a Rust crate by its Cargo.toml name (calls
/// between a workspace's crates are found, through the crate root's re-exports too), a
/// Python module from its src layout's root; and `symbol` reads a name as `callers` does.
#[test]
fn names_follow_the_manifests_and_calls_cross_a_workspaces_crates() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, ws) = (tmp.path().join("data"), tmp.path().join("ws"));
    let files = [
        ("Cargo.toml", "[workspace]\nmembers = [\"store\", \"app\"]\n"),
        ("store/Cargo.toml", "[package]\nname = \"cc-store\"\n"),
        ("store/src/lib.rs", "pub mod dir;\npub use dir::DataDir;\n"),
        ("store/src/dir.rs", "pub struct DataDir;\nimpl DataDir {\n    pub fn new() -> DataDir {\n        DataDir\n    }\n}\n"),
        ("app/Cargo.toml", "[package]\nname = \"app\"\n"),
        ("app/src/main.rs", "use cc_store::DataDir;\n\nfn main() {\n    let _d = DataDir::new();\n}\n"),
        ("py/pyproject.toml", "[project]\nname = \"flask\"\n"),
        ("py/src/flask/__init__.py", "from .app import Flask\n"),
        ("py/src/flask/app.py", "class Flask:\n    def __init__(self, name):\n        self.name = name\n\n    def run(self):\n        pass\n\n\ndef make():\n    return Flask(\"x\")\n"),
    ];
    write_tree(&ws, files);
    let cc = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_cc-server")).args(args).env("CC_DATA_DIR", &data).output().unwrap()
    };
    ok(&cc(&["index", path(&ws)]));
    let out = ok(&cc(&["callers", "DataDir::new"]));
    assert!(out.contains("callers of cc_store::dir::DataDir::new") && out.contains("app::main"), "{out}");
    let out = ok(&cc(&["symbol", "flask.app.Flask"]));
    assert!(out.contains("py/src/flask/app.py:1") && !out.contains("src.flask"), "{out}");
    // The forms callers takes, symbol takes too: a qualified suffix, another case.
    for name in ["Flask.run", "app.Flask.run", "FLASK"] {
        let out = ok(&cc(&["symbol", name]));
        assert!(out.contains("py/src/flask/app.py"), "{name}: {out}");
    }
    // Who calls a class calls its constructor: answered, through it.
    let out = ok(&cc(&["callers", "flask.app.Flask"]));
    assert!(
        out.contains("flask.app.make") && out.contains("[constructor]") && out.contains("via flask.app.Flask.__init__"),
        "{out}"
    );
}

/// TypeScript and JavaScript imports land where the toolchain sends them: a tsconfig's
/// `paths` (through `extends`, comments and trailing commas allowed) and a workspace
/// package by its package.json name (its `main` in a build folder read as `src/`). Two
/// packages define the same names, so only the import can say which one is called; and a
/// changed tsconfig re-reads the imports of files whose bytes did not change.
#[test]
fn typescript_path_aliases_and_workspace_packages_resolve_inside_the_repository() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, ws) = (tmp.path().join("data"), tmp.path().join("mono"));
    let text = "export function slugify(s: string): string {\n  return s.toLowerCase();\n}\n\nexport function titleCase(s: string): string {\n  return s;\n}\n";
    let base = |to: &str| {
        format!("{{\n  // shared by every package\n  \"compilerOptions\": {{ \"baseUrl\": \".\", \"paths\": {{ \"@text/*\": [\"packages/{to}/src/*\"], }}, }},\n}}\n")
    };
    let files = [
        ("package.json", "{ \"name\": \"mono\", \"private\": true, \"workspaces\": [\"packages/*\"] }".to_string()),
        ("tsconfig.base.json", base("shared")),
        ("packages/shared/package.json", "{ \"name\": \"@mono/shared\", \"main\": \"dist/index.js\" }".into()),
        ("packages/shared/src/index.ts", "export { slugify, titleCase } from './text';\n".into()),
        ("packages/shared/src/text.ts", text.into()),
        ("packages/legacy/package.json", "{ \"name\": \"@mono/legacy\", \"main\": \"dist/index.js\" }".into()),
        ("packages/legacy/src/index.ts", "export { slugify, titleCase } from './text';\n".into()),
        ("packages/legacy/src/text.ts", text.into()),
        ("packages/web/tsconfig.json", "{ \"extends\": \"../../tsconfig.base.json\" }".into()),
        (
            "packages/web/src/page.ts",
            "import { slugify } from '@mono/shared';\nimport { titleCase } from '@text/text';\n\nexport function renderPage(t: string) {\n  return titleCase(slugify(t));\n}\n"
                .into(),
        ),
    ];
    write_tree(&ws, files);
    let cc = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_cc-server")).args(args).env("CC_DATA_DIR", &data).output().unwrap()
    };
    let callees = || callees_by_path(cc, "renderPage");
    ok(&cc(&["index", path(&ws)]));
    let want = |titles: &str| {
        vec![
            ("slugify".to_string(), "packages/shared/src/text.ts".to_string()),
            ("titleCase".to_string(), format!("packages/{titles}/src/text.ts")),
        ]
    };
    assert_eq!(callees(), want("shared"));
    // The alias now points at the other package: page.ts is unchanged, its import is not.
    std::fs::write(ws.join("tsconfig.base.json"), base("legacy")).unwrap();
    ok(&cc(&["index", path(&ws)]));
    assert_eq!(callees(), want("legacy"));
}

/// Go imports land where `go build` sends them: an import path is its module's path (the
/// nearest go.mod's `module`) and a folder below, so the module's root package, which no
/// suffix of a path names, is found, and of two `internal/util` folders only the one the path
/// names is. A changed go.mod re-reads the imports of files whose bytes did not change.
#[test]
fn go_imports_resolve_through_the_modules_go_mod_declares() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, ws) = (tmp.path().join("data"), tmp.path().join("shop"));
    let pad = |who: &str| {
        format!("package util\n\n// Pad pads, the {who} way.\nfunc Pad(s string) string {{\n\treturn s\n}}\n")
    };
    let files = [
        ("go.mod", "module example.com/shop\n\ngo 1.21\n".to_string()),
        ("shop.go", "package shop\n\nfunc Total(xs []int) int {\n\treturn len(xs)\n}\n".into()),
        ("internal/util/pad.go", pad("current")),
        ("legacy/internal/util/pad.go", pad("old")),
        (
            "cmd/report/main.go",
            "package main\n\nimport (\n\t\"example.com/shop\"\n\t\"example.com/shop/internal/util\"\n)\n\nfunc report() string {\n\tshop.Total(nil)\n\treturn util.Pad(\"x\")\n}\n"
                .into(),
        ),
    ];
    write_tree(&ws, files);
    let cc = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_cc-server")).args(args).env("CC_DATA_DIR", &data).output().unwrap()
    };
    let callees = || callees_by_path(cc, "report");
    ok(&cc(&["index", path(&ws)]));
    assert_eq!(
        callees(),
        vec![
            ("Total".to_string(), "shop.go".to_string()),
            ("util.Pad".to_string(), "internal/util/pad.go".to_string()),
        ]
    );
    // The module is renamed: main.go is unchanged, but its paths now name a module elsewhere.
    std::fs::write(ws.join("go.mod"), "module example.com/store\n\ngo 1.21\n").unwrap();
    ok(&cc(&["index", path(&ws)]));
    let got = callees();
    assert!(got.iter().all(|(_, p)| p.is_empty()), "{got:?}");
}

/// Overloads share a qualified name: the ambiguity lists their signatures, and the parameters
/// pick one (`toJson(Object)`), in every command that takes a name.
#[test]
fn overloads_are_told_apart_by_their_parameters() {
    let e = env();
    std::fs::create_dir_all(e.repo.join("gson")).unwrap();
    std::fs::write(
        e.repo.join("gson/Gson.java"),
        "class Gson {\n  String toJson(Object src) {\n    return \"\";\n  }\n\n  String toJson(Object src, Class<?> type) {\n    return toJson(src);\n  }\n\n  void main() {\n    toJson(null, null);\n  }\n}\n",
    )
    .unwrap();
    ok(&cc(&e, &["index", path(&e.repo)]));
    let err = fails(&cc(&e, &["callers", "Gson.toJson"]), 2);
    assert!(err.contains("toJson(Object src)") && err.contains("toJson(Object src, Class<?> type)"), "{err}");
    assert!(err.contains("by its parameters"), "{err}");
    let v: serde_json::Value =
        serde_json::from_str(&ok(&cc(&e, &["callers", "Gson.toJson(Object)", "--json", "--possible"]))).unwrap();
    assert_eq!(v["symbol"]["line"], 2, "{v}");
    let v: serde_json::Value =
        serde_json::from_str(&ok(&cc(&e, &["callers", "Gson.toJson(Object, Class<?>)", "--json", "--possible"])))
            .unwrap();
    assert_eq!(v["symbol"]["line"], 6, "{v}");
    let out = ok(&cc(&e, &["symbol", "Gson.toJson(Object src, Class<?> type)"]));
    assert!(out.contains("gson/Gson.java:6") && !out.contains("gson/Gson.java:2"), "{out}");
    let err = fails(&cc(&e, &["callers", "Gson.toJson(int)"]), 2);
    assert!(err.contains("no symbol named"), "{err}");
}

#[test]
fn a_warm_run_leaves_the_graph_file_alone_and_a_change_updates_it() {
    let e = env();
    let counts =
        |out: &str| out.lines().find(|l| l.contains("call graph:")).unwrap().split(';').next().unwrap().to_string();
    let cold = counts(&ok(&cc(&e, &["index", path(&e.repo)])));
    let graph = e.data.join("repos/shop/graph.bin");
    let before = (std::fs::read(&graph).unwrap(), std::fs::metadata(&graph).unwrap().modified().unwrap());
    std::thread::sleep(std::time::Duration::from_millis(20));
    let warm_out = ok(&cc(&e, &["index", path(&e.repo)]));
    let warm = (std::fs::read(&graph).unwrap(), std::fs::metadata(&graph).unwrap().modified().unwrap());
    assert_eq!(before, warm, "a run that changed nothing rewrote graph.bin");
    // It reports the saved graph's counts (from graph.sum) without loading it.
    assert_eq!(counts(&warm_out), cold, "{warm_out}");
    // records.bin rewritten with the same bytes (newer on disk: a copy, a restore): the
    // graph is of the same records (their generation), so it is current and left alone.
    std::thread::sleep(std::time::Duration::from_millis(20));
    let records = e.data.join("repos/shop/records.bin");
    std::fs::write(&records, std::fs::read(&records).unwrap()).unwrap();
    assert_eq!(counts(&ok(&cc(&e, &["index", path(&e.repo)]))), cold);
    let modified = |p: &Path| std::fs::metadata(p).unwrap().modified().unwrap();
    assert_eq!((std::fs::read(&graph).unwrap(), modified(&graph)), before);
    // A file touched, not changed: its record is re-timed, the records get a new
    // generation, and the graph (of the older one) is loaded, found current and saved again.
    let touched = e.repo.join("billing/invoice.py");
    std::fs::File::options()
        .write(true)
        .open(&touched)
        .unwrap()
        .set_modified(modified(&graph) + std::time::Duration::from_secs(5))
        .unwrap();
    assert_eq!(counts(&ok(&cc(&e, &["index", path(&e.repo)]))), cold);
    assert!(modified(&graph) > before.1);
    // A new caller: the graph is rewritten, and answers with it.
    std::fs::write(
        e.repo.join("billing/refund.py"),
        "from billing.invoice import compute_total

def refund():
    return compute_total(1)
",
    )
    .unwrap();
    ok(&cc(&e, &["index", path(&e.repo)]));
    assert_ne!(std::fs::read(&graph).unwrap(), before.0);
    let out = ok(&cc(&e, &["callers", "billing.invoice.compute_total"]));
    assert!(out.contains("billing.refund.refund"), "{out}");
}

/// An edit inside a file is laid over the saved graph (`graph.jnl`, `graph.delta`) and the
/// commands answer as a fresh index of the same tree does; a file added writes it whole.
#[test]
fn an_edit_is_laid_over_the_saved_graph_and_answers_as_a_fresh_index() {
    let e = env();
    ok(&cc(&e, &["index", path(&e.repo)]));
    let dir = e.data.join("repos/shop");
    let invoice = e.repo.join("billing/invoice.py");
    let text = std::fs::read_to_string(&invoice).unwrap();
    std::fs::write(&invoice, format!("{text}\ndef monthly(qty):\n    return compute_total(qty) + compute_total(1)\n"))
        .unwrap();
    let run: serde_json::Value = serde_json::from_str(&ok(&cc(&e, &["index", path(&e.repo), "--json"]))).unwrap();
    assert_eq!((&run["graph"]["full"], &run["graph"]["layered"]), (&false.into(), &true.into()), "{run}");
    assert!(dir.join("graph.delta").is_file() && dir.join("graph.jnl").is_file(), "the edit was written whole");
    // A fresh index of the same tree, in another data folder.
    let fresh_data = e.data.parent().unwrap().join("fresh");
    let fresh = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_cc-server"))
            .args(args)
            .env("CC_DATA_DIR", &fresh_data)
            .current_dir(e.data.parent().unwrap())
            .output()
            .unwrap();
        ok(&out)
    };
    let cold: serde_json::Value = serde_json::from_str(&fresh(&["index", path(&e.repo), "--json"])).unwrap();
    assert_eq!((&run["graph"]["nodes"], &run["graph"]["edges"]), (&cold["graph"]["nodes"], &cold["graph"]["edges"]));
    for query in [
        ["callers", "billing.invoice.compute_total", "--json"],
        ["callees", "billing.invoice.monthly", "--json"],
        ["impact", "billing.invoice.compute_total", "--json"],
    ] {
        assert_eq!(ok(&cc(&e, &query)), fresh(&query), "{query:?}");
    }
    let out = ok(&cc(&e, &["callers", "billing.invoice.compute_total"]));
    assert!(out.contains("billing.invoice.monthly"), "{out}");
    // A file added: the graph is written whole, and the layers are gone.
    std::fs::write(e.repo.join("billing/tax.py"), "def tax():\n    return 1\n").unwrap();
    ok(&cc(&e, &["index", path(&e.repo)]));
    assert!(!dir.join("graph.delta").exists() && !dir.join("graph.jnl").exists());
}

#[test]
fn serve_stops_cleanly_on_sigterm() {
    use std::io::BufRead;
    let e = env();
    ok(&cc(&e, &["index", path(&e.repo)]));
    let mut child = Command::new(env!("CARGO_BIN_EXE_cc-server"))
        .args(["serve", "--port", "0"])
        .env("CC_DATA_DIR", &e.data)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .expect("the server says where it listens")
        .to_string();
    assert!(url.ends_with("/mcp"), "{line}");
    // It answers, then stops on SIGTERM with exit code 0.
    let addr = url.trim_start_matches("http://").trim_end_matches("/mcp").to_string();
    let mut s = std::net::TcpStream::connect(&addr).unwrap();
    use std::io::{Read, Write};
    write!(s, "GET /nowhere HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
    let mut resp = String::new();
    s.read_to_string(&mut resp).unwrap();
    assert!(resp.starts_with("HTTP/1.1 404"), "{resp}");
    Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    let status = (0..100)
        .find_map(|_| {
            let s = child.try_wait().unwrap();
            if s.is_none() {
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            s
        })
        .unwrap_or_else(|| {
            child.kill().unwrap();
            panic!("the server did not stop within 10 s of SIGTERM")
        });
    assert!(status.success(), "{status:?}");
}

/// The test model folder (tests/run sets CC_TEST_EMBED_MODEL; ../shared/models otherwise).
pub(crate) fn model_dir() -> PathBuf {
    let dir = std::env::var_os("CC_TEST_EMBED_MODEL").map(PathBuf::from).unwrap_or_else(|| {
        cc_indexer::fixture::manifest_dir(env!("CARGO_MANIFEST_DIR")).join("../../shared/models/all-MiniLM-L6-v2")
    });
    assert!(dir.join("model_int8.onnx").is_file(), "no test embedding model at {}: run tests/run", dir.display());
    dir
}

#[test]
fn hybrid_search_with_a_model_and_without() {
    let e = env();
    let model = model_dir().join("model_int8.onnx");
    let model = path(&model);
    let out = ok(&cc(&e, &["--embed-model", model, "index", path(&e.repo)]));
    assert!(out.contains("embeddings: 5 symbols, 5 embedded"), "{out}");
    let out = ok(&cc(&e, &["--embed-model", model, "index", path(&e.repo)]));
    assert!(out.contains("0 embedded") && out.contains("5 reused"), "{out}");

    // No word of `add_line_item` or its class: found by meaning.
    let q = "append a product row to a bill";
    let out = cc(&e, &["--embed-model", model, "search", q, "--mode", "semantic", "--limit", "1"]);
    let text = ok(&out);
    assert!(text.contains("add_line_item") && text.contains("vector #1"), "{text}");
    assert!(String::from_utf8_lossy(&out.stderr).is_empty(), "a search that got what it asked for prints no note");
    let json: serde_json::Value =
        serde_json::from_str(&ok(&cc(&e, &["--embed-model", model, "search", "compute total", "--json"]))).unwrap();
    assert_eq!(json[0]["symbol"]["name"], "compute_total");
    assert_eq!(json[0]["mode"], "hybrid");
    assert_eq!(json[0]["bm25_rank"], 1);
    assert!(json[0]["vector_rank"].as_u64().is_some() && json[0]["score"].as_f64().unwrap() > 0.0, "{json}");

    // The index remembers its model: a search naming none is hybrid, semantic works.
    let out = cc(&e, &["search", q, "--mode", "semantic", "--limit", "1"]);
    assert!(ok(&out).contains("add_line_item"), "{}", ok(&out));
    assert!(String::from_utf8_lossy(&out.stderr).is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_str(&ok(&cc(&e, &["search", "compute total", "--json"]))).unwrap();
    assert_eq!(json[0]["mode"], "hybrid", "{json}");
    // So does an index run naming none: the vectors are reused, not dropped.
    let out = ok(&cc(&e, &["index", path(&e.repo)]));
    assert!(out.contains("0 embedded") && out.contains("5 reused"), "{out}");

    // No model: keyword ranking, and the reason in one short line; semantic asked for by
    // name is an error.
    let e = env();
    ok(&cc(&e, &["index", path(&e.repo)]));
    let out = cc(&e, &["search", "compute total"]);
    assert!(ok(&out).contains("compute_total"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.trim_end(),
        "mode: keyword (semantic unavailable: no embedding model is configured; see --embed-model)"
    );
    let err = fails(&cc(&e, &["search", "compute total", "--mode", "semantic"]), 1);
    assert!(err.contains("--mode semantic: semantic search is unavailable: no embedding model is configured"), "{err}");

    // A model that cannot be loaded: the index is still built, and says why.
    let out = ok(&cc(&e, &["--embed-model", path(&e.repo), "index", path(&e.repo)]));
    assert!(out.contains("embeddings: unavailable") && out.contains("model.onnx"), "{out}");
    let out = ok(&cc(&e, &["index", path(&e.repo), "--no-embed"]));
    assert!(out.contains("embeddings: skipped (--no-embed)"), "{out}");
    let err = fails(&cc(&e, &["search", "x", "--mode", "dense"]), 2);
    assert!(err.contains("unknown mode 'dense'"), "{err}");
}

/// Query vectors are cached: the same text goes to the model once, a cached one is answered
/// while the model is busy (held here as an index run would hold it for a batch), and the
/// oldest entries make room for new ones.
#[test]
fn query_vectors_are_cached_and_a_cached_query_does_not_wait_for_the_model() {
    use std::sync::mpsc;
    use std::time::Duration;
    let model = model_dir().join("model_int8.onnx");
    let e = std::sync::Arc::new(cc_server::embedding::Embeddings::new(Some(path(&model).to_string())));
    let (a, id) = e.query("close every pooled connection").unwrap();
    assert_eq!((a.len(), e.queries_embedded()), (384, 1));
    let (b, id2) = e.query("close every pooled connection").unwrap();
    assert_eq!((a, id), (b, id2));
    assert_eq!(e.queries_embedded(), 1, "the second time comes from the cache");

    let busy = e.model().unwrap().lock().unwrap();
    let (tx, rx) = mpsc::channel();
    let e2 = e.clone();
    std::thread::spawn(move || {
        let _ = tx.send(e2.query("close every pooled connection").map(|(v, _)| v.len()));
    });
    // The limit only bounds how long a failure takes to show.
    assert_eq!(rx.recv_timeout(Duration::from_secs(60)), Ok(Ok(384)), "answered while the model is held");
    drop(busy);

    for i in 0..512 {
        e.query(&format!("query number {i}")).unwrap();
    }
    assert_eq!(e.queries_embedded(), 513);
    e.query("close every pooled connection").unwrap();
    assert_eq!(e.queries_embedded(), 514, "the oldest query was evicted by 512 newer ones");
    e.query("query number 511").unwrap();
    assert_eq!(e.queries_embedded(), 514, "a recent one is still cached");
}

/// The binary routes tree-sitter's allocations to mimalloc (`main`); this test process
/// leaves them on the C library's malloc. Every language's grammar (external scanners
/// included) must extract the same records either way: the binary's `records.bin` for the
/// 19-language fixtures equals the one the library writes in process.
#[test]
fn the_binary_extracts_every_language_as_the_library_does() {
    let fixtures = cc_indexer::fixture::manifest_dir(env!("CARGO_MANIFEST_DIR")).join("../indexer/tests/fixtures");
    let e = env();
    let out = ok(&cc(&e, &["index", path(&fixtures), "--name", "fx", "--no-embed", "--json"]));
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let languages = report["stats"]["languages"].as_object().unwrap();
    assert!(languages.len() >= 19, "{languages:?}");
    let by_binary = cc_indexer::store::read_records(&cc_indexer::DataDir::new(&e.data).repo_dir("fx")).unwrap();

    let here = e.data.parent().unwrap().join("in-process");
    let data = cc_indexer::DataDir::new(&here);
    let opts = cc_indexer::IndexOptions { name: Some("fx".into()), ..cc_indexer::IndexOptions::new(&fixtures) };
    cc_indexer::index_repository(&data, &opts, &cc_indexer::NoProgress, None).unwrap();
    let in_process = cc_indexer::store::read_records(&data.repo_dir("fx")).unwrap();

    assert!(by_binary.iter().map(|f| f.symbols.len()).sum::<usize>() > 500);
    assert_eq!(by_binary.len(), in_process.len());
    for (a, b) in by_binary.iter().zip(&in_process) {
        assert_eq!(a, b, "{} differs", a.path);
    }
}
