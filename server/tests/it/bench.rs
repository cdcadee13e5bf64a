//! `cc-server bench` through the built binary on a small repository: the table renders,
//! the JSON validates against the schema the binary prints, peers that are missing are
//! reported as not run (with how to install them) and installed ones run, the workload is
//! the same for the same seed, and the repository itself is never modified.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo(root: &Path) -> PathBuf {
    let repo = root.join("shop");
    for (path, text) in [
        ("billing/invoice.py", "class InvoiceBuilder:\n    def add_line_item(self, sku, qty):\n        return compute_total(qty)\n\ndef compute_total(qty):\n    return round_price(qty * 2)\n\ndef round_price(x):\n    return x\n"),
        ("billing/report.py", "from billing.invoice import compute_total\n\ndef monthly_report(rows):\n    return [compute_total(r) for r in rows]\n"),
        ("web/cart.ts", "export function renderCart(items: string[]): string {\n  return formatItems(items);\n}\nfunction formatItems(items: string[]): string {\n  return items.join(',');\n}\n"),
        ("core/src/lib.rs", "pub fn parse_price(s: &str) -> u64 { digits(s) }\nfn digits(s: &str) -> u64 { s.len() as u64 }\n"),
    ] {
        let p = repo.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    repo
}

fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                out.push((e.path(), std::fs::read(e.path()).unwrap()));
            }
        }
    }
    out.sort();
    out
}

struct Run {
    table: String,
    json: serde_json::Value,
}

fn bench(repo: &Path, out: &Path, seed: u64, path_env: &str, model: Option<&Path>) -> Run {
    let json = out.join(format!("bench-{seed}.json"));
    let svg = out.join(format!("bench-{seed}.svg"));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cc-server"));
    if let Some(m) = model {
        cmd.arg("--embed-model").arg(m);
    }
    let o = cmd
        .env_remove("CC_EMBED_MODEL")
        .args(["bench", "--queries", "12", "--touch", "2", "--against", "--seed", &seed.to_string()])
        .arg(repo)
        .arg("--json")
        .arg(&json)
        .arg("--plot")
        .arg(&svg)
        .env("PATH", path_env)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("impact_d6") && svg.contains("milliseconds"), "{svg}");
    Run {
        table: String::from_utf8(o.stdout).unwrap(),
        json: serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap(),
    }
}

fn workloads(r: &Run) -> Vec<serde_json::Value> {
    r.json["queries"].as_array().unwrap().iter().map(|q| q["workload"].clone()).collect()
}

fn peer<'a>(r: &'a Run, name: &str) -> &'a serde_json::Value {
    r.json["peers"].as_array().unwrap().iter().find(|p| p["peer"] == name).unwrap()
}

#[test]
fn bench_measures_a_repository_side_by_side_with_peers() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = repo(tmp.path());
    let before = snapshot(&repo);
    // No peer on PATH: an empty folder.
    let empty = tmp.path().join("empty-path");
    std::fs::create_dir(&empty).unwrap();
    let a = bench(&repo, tmp.path(), 7, empty.to_str().unwrap(), None);

    // The table a person reads.
    for needle in
        ["cold", "warm", "touched", "exact", "keyword", "semantic", "hybrid", "callers", "impact_d6", "p99_ms"]
    {
        assert!(a.table.contains(needle), "{needle} missing from\n{}", a.table);
    }
    // The JSON validates against the schema the binary prints.
    let schema = Command::new(env!("CARGO_BIN_EXE_cc-server")).args(["bench", "--schema"]).output().unwrap();
    let schema: serde_json::Value = serde_json::from_slice(&schema.stdout).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator.iter_errors(&a.json).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}");
    // ... and the schema is not vacuous: a document without its queries fails it.
    let mut broken = a.json.clone();
    broken.as_object_mut().unwrap().remove("queries");
    assert!(!validator.is_valid(&broken));

    // What was measured.
    let j = &a.json;
    assert_eq!(j["schema"], "cc-server-bench/1");
    assert_eq!(j["repo"]["files"], 4);
    assert!(j["machine"]["cores"].as_u64().unwrap() >= 1);
    let phases: Vec<&str> = j["index"].as_array().unwrap().iter().map(|i| i["phase"].as_str().unwrap()).collect();
    assert_eq!(phases, ["cold", "warm", "touched", "edit"]);
    assert_eq!(j["index"][0]["parsed"], 4);
    assert_eq!(j["index"][1]["parsed"], 0);
    assert_eq!(j["index"][2]["parsed"], 2);
    assert_eq!(j["index"][3]["parsed"], 1, "the edit changes one file");
    // Each run's time split by phase: a cold run resolves every reference and saves the
    // graph; a warm one resolves and saves nothing.
    let f = |i: usize, k: &str| j["index"][i][k].as_f64().unwrap();
    assert!(f(0, "refs_resolved") > 0.0 && f(0, "graph_save_s") > 0.0 && f(0, "index_s") > 0.0);
    assert!(f(0, "graph_s") >= f(0, "graph_save_s"));
    assert_eq!((f(1, "refs_resolved"), f(1, "graph_save_s")), (0.0, 0.0));
    assert!(f(3, "graph_save_s") > 0.0, "the edit saves the graph again");
    assert_eq!((&j["index"][0]["graph_layered"], &j["index"][3]["graph_layered"]), (&false.into(), &true.into()));
    assert!(j["index"][0]["peak_rss_mb"].as_f64().unwrap() > 1.0);
    // The size on disk is the whole folder (graph included) from the cold run on: a warm
    // run that writes nothing reports the same size.
    assert_eq!(j["index"][0]["index_bytes"], j["index"][1]["index_bytes"]);
    for q in j["queries"].as_array().unwrap() {
        // Without a model, semantic and hybrid are listed as not measured, with the reason.
        if q["kind"] == "semantic" || q["kind"] == "hybrid" {
            assert_eq!(q["count"], 0, "{q}");
            assert!(q["note"].as_str().unwrap().contains("unavailable"), "{q}");
            continue;
        }
        assert_eq!(q["count"], 12, "{q}");
        assert_eq!(q["samples_ms"].as_array().unwrap().len(), 12);
        assert!(q["p50_ms"].as_f64().unwrap() <= q["p99_ms"].as_f64().unwrap());
    }
    // Callers of symbols drawn from a repository where most functions are called find hits.
    let kind = |k: &str| j["queries"].as_array().unwrap().iter().find(|q| q["kind"] == k).unwrap().clone();
    let callers = kind("callers");
    assert!(callers["mean_hits"].as_f64().unwrap() > 0.0, "{callers}");
    // The same queries as fresh processes: the same answers, and each process's peak memory.
    for (process, in_process) in [("callers_process", "callers"), ("impact_d3_process", "impact_d3")] {
        let (p, q) = (kind(process), kind(in_process));
        assert_eq!(p["workload"], q["workload"], "{p}");
        assert_eq!(p["mean_hits"], q["mean_hits"], "a fresh process answered otherwise: {p}");
        assert!(p["peak_rss_mb"].as_f64().unwrap() > 1.0, "{p}");
        assert!(a.table.contains(process));
    }

    // Missing peers: not run, with how to install them.
    for (name, how) in
        [("universal-ctags", "universal-ctags"), ("ripgrep", "ripgrep"), ("CodeGraphContext", "pip install")]
    {
        let p = peer(&a, name);
        assert_eq!(p["status"], "not run", "{p}");
        assert!(p["note"].as_str().unwrap().contains(how), "{p}");
    }
    assert!(a.table.contains("not run"));

    // Same seed, same workload; another seed, another.
    let b = bench(&repo, tmp.path(), 7, empty.to_str().unwrap(), None);
    assert_eq!(workloads(&a), workloads(&b));
    // With the model (int8): every kind is measured, semantic and hybrid included.
    let path = std::env::var("PATH").unwrap();
    let model = crate::cli::model_dir().join("model_int8.onnx");
    let c = bench(&repo, tmp.path(), 8, &path, Some(&model));
    assert_ne!(workloads(&a), workloads(&c));
    for q in c.json["queries"].as_array().unwrap() {
        assert_eq!(q["count"], 12, "{q}");
    }

    // Installed peers run (the test command installs universal-ctags and ripgrep).
    for name in ["universal-ctags", "ripgrep"] {
        let p = peer(&c, name);
        assert_eq!(p["status"], "ran", "{name} did not run (install it: apt-get install universal-ctags ripgrep): {p}");
        assert!(p["ratio"].as_f64().unwrap() > 0.0, "{p}");
    }

    // The repository was never touched.
    assert_eq!(snapshot(&repo), before);
}

#[test]
fn bench_refuses_bad_input_clearly() {
    let tmp = tempfile::tempdir().unwrap();
    let cc = |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_cc-server")).args(args).output().unwrap();
    let missing = tmp.path().join("nope");
    let o = cc(&["bench", missing.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot read the repository"));
    let file = tmp.path().join("f.py");
    std::fs::write(&file, "x = 1\n").unwrap();
    let o = cc(&["bench", file.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("is a file"));
    let o = cc(&["bench", tmp.path().to_str().unwrap(), "--plot", "out.png"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("FILE.svg"));
}
