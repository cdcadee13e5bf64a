//! What the fuzz targets share: an app over a small indexed repository (built once per
//! process, in a temporary folder), and a runtime to drive it.

use std::sync::{Arc, OnceLock};

use cc_indexer::{DataDir, IndexOptions, NoProgress};
use cc_server::app::App;
use cc_server::mcp::extension::Extension;
use cc_server::mcp::surface::Surface;

/// The repository the app serves: Python and TypeScript, with calls between them.
const FILES: &[(&str, &str)] = &[
    (
        "billing/invoice.py",
        "from billing.tax import compute_tax\n\nclass Invoice:\n    \"\"\"An invoice.\"\"\"\n    def total(self):\n        return compute_tax(self.subtotal())\n\n    def subtotal(self):\n        return 1\n",
    ),
    ("billing/tax.py", "def compute_tax(x):\n    \"\"\"Tax for an amount.\"\"\"\n    return x * 0.2\n"),
    ("web/render.ts", "export function total(): number { return render(); }\nfunction render(): number { return 0; }\n"),
];

pub struct Fixture {
    pub app: Arc<App>,
    /// Every built-in tool set and the conformance fixtures.
    pub surface: Surface,
    pub rt: tokio::runtime::Runtime,
    _tmp: tempfile::TempDir,
}

/// The app, built on first use: workspace `default` holds the repository `shop`, `team`
/// none; the conformance fixtures are its extension, as in the test suite's apps.
pub fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let tmp = tempfile::tempdir().expect("a temporary folder");
        let repo = tmp.path().join("shop");
        for (p, text) in FILES {
            let path = repo.join(p);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let data = DataDir::new(tmp.path().join("data"));
        let run =
            cc_server::engine::index(&data, &IndexOptions::new(&repo), &NoProgress, None).expect("the fixture indexes");
        let store = cc_server::serve::open_store(&data).unwrap();
        cc_server::serve::register(&store, "default", &run.index.name, true).unwrap();
        cc_server::serve::block_on(store.workspaces().ensure("team", "Team")).unwrap();
        let fixtures: Arc<dyn Extension> = Arc::new(cc_tests::conformance::Fixtures);
        let app = cc_server::serve::app_of(data, store, None, Some(fixtures), |_| Ok(())).expect("the app builds");
        let surface = app.surface(Some("default,conformance")).expect("the surface");
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        Fixture { app, surface, rt, _tmp: tmp }
    })
}

/// A little reader of fuzzer bytes: structure taken from the front, the rest as a tail.
pub struct Bytes<'a>(pub &'a [u8]);

impl<'a> Bytes<'a> {
    pub fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }

    /// One of `options`.
    pub fn pick<T: Copy>(&mut self, options: &[T]) -> T {
        options[self.byte() as usize % options.len()]
    }

    /// Up to 255 bytes, length first.
    pub fn chunk(&mut self) -> &'a [u8] {
        let n = (self.byte() as usize).min(self.0.len());
        let (chunk, rest) = self.0.split_at(n);
        self.0 = rest;
        chunk
    }

    pub fn rest(self) -> &'a [u8] {
        self.0
    }
}
