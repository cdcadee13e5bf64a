//! Where browser rigs run: here (a driver and browser per rig, the default), or, per engine,
//! at a remote W3C WebDriver endpoint — a Selenium Grid, a hosted browser service, any
//! WebDriver URL. `[webdriver.<engine>]` in config.toml, and on `serve` and `mcp`
//! `--webdriver-url` / `CC_WEBDRIVER_URL` and `--webdriver-header` / `CC_WEBDRIVER_HEADER`,
//! which win over the file (a URL replaces the file's, a header replaces one of its name).
//!
//! ```toml
//! [webdriver.chromium]
//! # http(s)://[USER:PASSWORD@]HOST[:PORT][/PATH]; a user and password go as Basic authentication
//! url = "https://grid.example.com/wd/hub"
//! # Sent on every WebDriver request (the session's end too): a service's authentication
//! headers = { Authorization = "Bearer …" }
//! # Passed through into the new session's capabilities (alwaysMatch), over the engine's own:
//! # objects merge key by key, an array's entries are appended to ours, null removes our key,
//! # any other value replaces ours (the configuration wins). A table, or a JSON object as a string.
//! capabilities = { platformName = "linux", "se:name" = "cc-server" }
//! [webdriver.firefox]
//! url = "https://grid.example.com/wd/hub"
//! capabilities = '{"moz:firefoxOptions": {"prefs": {"intl.accept_languages": "en"}}}'
//! ```
//!
//! What a remote session gets of the engine's own capabilities: the browser name, headless,
//! the window size, the quiet first-run flags and preferences. What it does not get: anything
//! naming this machine — a browser binary, a profile folder, `--no-sandbox` (a node running
//! its browser as root needs it passed through). Header values, a URL's password and the
//! capabilities' values are never shown (`Debug`, errors, rig_list); the endpoint is shown as
//! scheme, host, port and path.

use std::collections::{BTreeMap, HashMap};

use cc_rigs::browser::{Engine, Remote};
use serde::Deserialize;
use serde_json::{Map, Value};

/// `[webdriver]`: one table per engine.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Section {
    pub chromium: Option<EndpointDecl>,
    pub firefox: Option<EndpointDecl>,
    pub webkit: Option<EndpointDecl>,
}

/// `[webdriver.<engine>]`.
#[derive(Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EndpointDecl {
    /// The endpoint (absent: `--webdriver-url` gives it).
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    #[serde(default)]
    pub capabilities: Option<Capabilities>,
}

impl std::fmt::Debug for EndpointDecl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EndpointDecl")
            .field("url", &self.url.as_ref().map(|u| Remote::new(u.as_str()).endpoint()))
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("capabilities", &self.capabilities.as_ref().map(|_| "…"))
            .finish()
    }
}

/// Capabilities as written: a TOML table, or a JSON object in a string.
#[derive(Clone, Deserialize)]
#[serde(untagged)]
pub enum Capabilities {
    Table(Map<String, Value>),
    Json(String),
}

impl Capabilities {
    fn object(&self) -> Result<Map<String, Value>, String> {
        match self {
            Capabilities::Table(m) => Ok(m.clone()),
            Capabilities::Json(s) => match serde_json::from_str::<Value>(s) {
                Ok(Value::Object(m)) => Ok(m),
                Ok(_) => Err("a JSON object ({…}), not another JSON value".into()),
                Err(e) => Err(format!("not JSON: {e}")),
            },
        }
    }
}

/// The command line's flags (`serve`, `mcp`).
pub const URL_FLAG: &str = "--webdriver-url / CC_WEBDRIVER_URL";
pub const HEADER_FLAG: &str = "--webdriver-header / CC_WEBDRIVER_HEADER";

impl Section {
    fn slot(&mut self, e: Engine) -> &mut Option<EndpointDecl> {
        match e {
            Engine::Chromium => &mut self.chromium,
            Engine::Firefox => &mut self.firefox,
            Engine::Webkit => &mut self.webkit,
        }
    }

    fn get(&self, e: Engine) -> Option<&EndpointDecl> {
        match e {
            Engine::Chromium => self.chromium.as_ref(),
            Engine::Firefox => self.firefox.as_ref(),
            Engine::Webkit => self.webkit.as_ref(),
        }
    }

    /// Checks every table: its URL, header names and values, capabilities; with
    /// `require_url`, that each table has a URL (the file's or the command line's). The error
    /// names the table and key, never a header's value.
    pub fn check(&self, require_url: bool) -> Result<(), String> {
        for e in Engine::ALL {
            let Some(d) = self.get(e) else { continue };
            let at = format!("[webdriver.{}]", e.as_str());
            if let Some(c) = &d.capabilities {
                c.object().map_err(|m| format!("{at} capabilities: {m}"))?;
            }
            match &d.url {
                Some(u) => {
                    let r = Remote { url: u.clone(), headers: headers(d), capabilities: Map::new() };
                    r.check().map_err(|m| format!("{at} {m}"))?;
                }
                None if require_url => {
                    return Err(format!(
                        "{at} has no url: give url = \"http(s)://HOST[:PORT][/PATH]\" there, or {URL_FLAG} {}=URL",
                        e.as_str()
                    ));
                }
                None => {
                    // Header names and values are checked without a URL too.
                    let r =
                        Remote { url: "http://check.invalid/".into(), headers: headers(d), capabilities: Map::new() };
                    r.check().map_err(|m| format!("{at} {m}"))?;
                }
            }
        }
        Ok(())
    }

    /// The remote endpoints, per engine (tables with a URL; [`Section::check`] passed).
    pub fn remotes(&self) -> HashMap<Engine, Remote> {
        let mut out = HashMap::new();
        for e in Engine::ALL {
            let Some(d) = self.get(e) else { continue };
            let Some(url) = &d.url else { continue };
            let capabilities = d.capabilities.as_ref().and_then(|c| c.object().ok()).unwrap_or_default();
            out.insert(e, Remote { url: url.clone(), headers: headers(d), capabilities });
        }
        out
    }

    /// Adds the command line's endpoints (`[ENGINE=]URL`, entries also split on white
    /// space; a plain URL is chromium's, browser_use's default engine) and headers
    /// (`[ENGINE:]NAME: VALUE`; without an engine, for every engine with an endpoint), then
    /// checks the whole section with URLs required.
    pub fn apply(&mut self, urls: &[String], header_entries: &[String]) -> Result<(), String> {
        for entry in urls.iter().flat_map(|u| u.split_whitespace()) {
            let (engine, url) = parse_url_entry(entry)?;
            let slot = self.slot(engine).get_or_insert_with(EndpointDecl::default);
            slot.url = Some(url.to_string());
        }
        for (i, raw) in header_entries.iter().enumerate().filter(|(_, h)| !h.trim().is_empty()) {
            let (engine, name, value) =
                parse_header_entry(raw).map_err(|m| format!("{HEADER_FLAG}: entry {}: {m}", i + 1))?;
            let engines: Vec<Engine> = match engine {
                Some(e) => vec![e],
                None => Engine::ALL.into_iter().filter(|e| self.get(*e).is_some_and(|d| d.url.is_some())).collect(),
            };
            if engines.is_empty() {
                return Err(format!(
                    "{HEADER_FLAG}: entry {} ({name}) names no engine and no engine has a remote endpoint: give {URL_FLAG} first, or ENGINE:{name}: VALUE",
                    i + 1
                ));
            }
            for e in engines {
                let slot = self.slot(e).get_or_insert_with(EndpointDecl::default);
                slot.headers.retain(|n, _| !n.eq_ignore_ascii_case(&name));
                slot.headers.insert(name.clone(), value.clone());
            }
        }
        self.check(true)
    }
}

fn headers(d: &EndpointDecl) -> Vec<(String, String)> {
    d.headers.iter().map(|(n, v)| (n.clone(), v.clone())).collect()
}

/// `chromium=URL`, `firefox=URL`, `webkit=URL`, or a plain `URL` (chromium's).
fn parse_url_entry(entry: &str) -> Result<(Engine, &str), String> {
    let lower = entry.to_ascii_lowercase();
    let (engine, url) = if lower.starts_with("http://") || lower.starts_with("https://") {
        (Engine::Chromium, entry)
    } else {
        let Some((name, url)) = entry.split_once('=') else {
            return Err(format!(
                "{URL_FLAG}: '{}' is not [ENGINE=]URL (ENGINE chromium, firefox or webkit; a plain http(s) URL is chromium's)",
                Remote::new(entry).endpoint()
            ));
        };
        let engine = Engine::parse(name.trim()).map_err(|_| {
            format!(
                "{URL_FLAG}: unknown engine '{}' in '{}=…': engines are chromium, firefox, webkit",
                name.trim(),
                name.trim()
            )
        })?;
        (engine, url)
    };
    Remote::new(url).check().map_err(|m| format!("{URL_FLAG}: {}={m}", engine.as_str()))?;
    Ok((engine, url))
}

/// `[ENGINE:]NAME: VALUE`.
fn parse_header_entry(raw: &str) -> Result<(Option<Engine>, String, String), String> {
    let expected = "expected [ENGINE:]NAME: VALUE, as `Authorization: Bearer TOKEN` or `firefox:X-Api-Key: KEY`";
    let (first, rest) = raw.split_once(':').ok_or_else(|| expected.to_string())?;
    let (engine, name, value) = match Engine::parse(first.trim()) {
        Ok(e) => {
            let (name, value) = rest.split_once(':').ok_or_else(|| expected.to_string())?;
            (Some(e), name.trim(), value.trim())
        }
        Err(_) => (None, first.trim(), rest.trim()),
    };
    if name.is_empty() || value.is_empty() {
        return Err(expected.to_string());
    }
    Ok((engine, name.to_string(), value.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn flags_add_endpoints_and_headers_over_the_file() {
        let mut sec: Section = toml::from_str(
            r#"
[chromium]
headers = { Authorization = "Bearer from-file", X-Team = "rigs" }
capabilities = { platformName = "linux", "goog:chromeOptions" = { args = ["--lang=en"] } }
[firefox]
url = "http://grid:4444/wd/hub"
capabilities = '{"moz:firefoxOptions": {"prefs": {"intl.accept_languages": "en"}}}'
"#,
        )
        .unwrap();
        assert!(sec.check(false).is_ok());
        let e = sec.check(true).unwrap_err();
        assert!(e.contains("[webdriver.chromium] has no url") && e.contains("--webdriver-url"), "{e}");
        sec.apply(
            &s(&["https://u:pw@hub.example.com/wd/hub webkit=http://127.0.0.1:4445"]),
            &s(&["authorization: Bearer from-flag", "firefox:X-Api-Key: k-1"]),
        )
        .unwrap();
        let r = sec.remotes();
        let c = &r[&Engine::Chromium];
        assert_eq!(c.url, "https://u:pw@hub.example.com/wd/hub");
        assert_eq!(c.endpoint(), "https://hub.example.com/wd/hub");
        let mut h = c.headers.clone();
        h.sort();
        assert_eq!(h, [("X-Team".into(), "rigs".into()), ("authorization".into(), "Bearer from-flag".into())]);
        assert_eq!(c.capabilities["goog:chromeOptions"]["args"][0], "--lang=en");
        let f = &r[&Engine::Firefox];
        assert!(f.headers.contains(&("X-Api-Key".into(), "k-1".into())) && f.headers.len() == 2, "{:?}", f.headers);
        assert_eq!(f.capabilities["moz:firefoxOptions"]["prefs"]["intl.accept_languages"], "en");
        assert_eq!(r[&Engine::Webkit].headers.len(), 1, "an engine-less header goes to every endpoint");
        let shown = format!("{sec:?}");
        for secret in ["from-flag", "from-file", "k-1", "pw", "linux"] {
            assert!(!shown.contains(secret), "{secret} in {shown}");
        }
    }

    #[test]
    fn bad_values_are_refused_naming_the_flag_and_what_was_expected() {
        let fails = |urls: &[&str], headers: &[&str]| Section::default().apply(&s(urls), &s(headers)).unwrap_err();
        let e = fails(&["safari=http://x"], &[]);
        assert!(e.starts_with("--webdriver-url / CC_WEBDRIVER_URL: unknown engine 'safari'"), "{e}");
        let e = fails(&["grid:4444"], &[]);
        assert!(e.contains("is not [ENGINE=]URL"), "{e}");
        let e = fails(&["firefox=ftp://grid/"], &[]);
        assert!(e.contains("firefox=") && e.contains("http or https"), "{e}");
        let e = fails(&["http://grid/?key=sekrit"], &[]);
        assert!(e.contains("as a header") && !e.contains("sekrit"), "{e}");
        let e = fails(&["http://grid/"], &["no colon here"]);
        assert!(
            e.starts_with("--webdriver-header / CC_WEBDRIVER_HEADER: entry 1: expected [ENGINE:]NAME: VALUE"),
            "{e}"
        );
        let e = fails(&["http://grid/"], &["Bad Name: sekrit"]);
        assert!(e.contains("not an HTTP header name") && !e.contains("sekrit"), "{e}");
        let e = fails(&[], &["Authorization: Bearer sekrit"]);
        assert!(e.contains("no engine has a remote endpoint") && !e.contains("sekrit"), "{e}");
        let e = fails(&[], &["firefox:Authorization: Bearer sekrit"]);
        assert!(e.contains("[webdriver.firefox] has no url") && !e.contains("sekrit"), "{e}");
        let bad: Section = toml::from_str("[chromium]\nurl = \"http://g/\"\ncapabilities = '[1]'\n").unwrap();
        assert!(bad.check(false).unwrap_err().contains("[webdriver.chromium] capabilities: a JSON object"));
        assert!(toml::from_str::<Section>("[safari]\nurl = \"http://g/\"\n").is_err());
    }
}
