//! Browser rigs on a remote W3C WebDriver endpoint (a Selenium Grid, a hosted browser
//! service, any WebDriver URL): [`Remote`] says where and how, [`merge_capabilities`] how the
//! configured capabilities go over the engine's own, and the connector fantoccini is given
//! adds the endpoint's headers to every request it makes.
//!
//! fantoccini builds its own hyper client from a connector and has no hook for request
//! headers, so the connector is where they go in: for each connection it dials the endpoint
//! (http, or https through rustls with webpki's roots) and hands fantoccini one end of an
//! in-memory pipe; hyper serves the other end, and every request read there is sent on over
//! the real connection (hyper's client) with the headers set. No socket is opened for it and
//! no HTTP is parsed by hand. Header values are marked sensitive and never shown: `Debug`, the
//! errors and [`Remote::endpoint`] name the header names only, and the URL without its user,
//! password or query.

use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::body::Incoming;
use hyper::header::{HeaderName, HeaderValue, AUTHORIZATION};
use hyper::{Request, Uri};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioIo;
use serde_json::{Map, Value};

use crate::BoxFuture;

/// A remote WebDriver endpoint for one engine. No driver, browser or profile runs here: the
/// session is made at `url`, with the engine's capabilities less what names this machine
/// (binary paths, a profile folder, `--no-sandbox`), merged with `capabilities`.
#[derive(Clone, Default)]
pub struct Remote {
    /// `http(s)://[USER:PASSWORD@]HOST[:PORT][/PATH]`: a Selenium Grid's `http://grid:4444`
    /// (or `…/wd/hub`), a service's hub URL. A user and password go as Basic authentication
    /// on every request; a query string is refused (WebDriver paths are joined to the URL and
    /// would drop it: give such a token as a header).
    pub url: String,
    /// (name, value) sent on every WebDriver request, the session's end included: a
    /// service's authentication. Secrets: never logged, never in `Debug` or an error.
    pub headers: Vec<(String, String)>,
    /// Capabilities passed through into the new session (W3C `alwaysMatch`), over the
    /// engine's own by [`merge_capabilities`]: `se:*` options, `platformName`,
    /// `browserVersion`, a vendor's `bstack:options`, a binary the remote machine needs. Their
    /// values are not shown either (a service's access key may be one).
    pub capabilities: Map<String, Value>,
}

impl std::fmt::Debug for Remote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Remote")
            .field("endpoint", &self.endpoint())
            .field("headers", &self.headers.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>())
            .field("capabilities", &self.capabilities.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl Remote {
    pub fn new(url: impl Into<String>) -> Remote {
        Remote { url: url.into(), ..Remote::default() }
    }

    /// The endpoint as it may be shown: scheme, host, port and path, without a user,
    /// password, query or fragment.
    pub fn endpoint(&self) -> String {
        match url::Url::parse(self.url.trim()) {
            Ok(u) => shown(&u),
            Err(_) => "(not a URL)".to_string(),
        }
    }

    /// Checks the URL, the headers and the capabilities; the error says which and why (never
    /// a header's value).
    pub fn check(&self) -> Result<(), String> {
        self.parts().map(|_| ())
    }

    /// The URL fantoccini is given (no user or password: they become a header, so that every
    /// request carries them — fantoccini's own session end would not) and the headers.
    pub(crate) fn parts(&self) -> Result<(url::Url, Vec<(HeaderName, HeaderValue)>), String> {
        let raw = self.url.trim();
        let mut u = url::Url::parse(raw).map_err(|e| format!("'{}' is not a URL: {e}", redact_raw(raw)))?;
        if u.scheme() != "http" && u.scheme() != "https" {
            return Err(format!("{}: an http or https URL, not {}:", shown(&u), u.scheme()));
        }
        if u.host_str().is_none_or(str::is_empty) {
            return Err(format!("{}: the URL names no host", shown(&u)));
        }
        if u.query().is_some() || u.fragment().is_some() {
            return Err(format!(
                "{}: a query string or fragment is not kept on WebDriver requests; give a token as a header instead",
                shown(&u)
            ));
        }
        let mut headers = Vec::new();
        for (i, (name, value)) in self.headers.iter().enumerate() {
            let n = HeaderName::from_bytes(name.trim().as_bytes())
                .map_err(|_| format!("header {}: '{name}' is not an HTTP header name", i + 1))?;
            let mut v = HeaderValue::from_str(value.trim())
                .map_err(|_| format!("header {n}: its value is not a valid HTTP header value"))?;
            v.set_sensitive(true);
            headers.push((n, v));
        }
        if !u.username().is_empty() || u.password().is_some() {
            let user = percent_decode(u.username());
            let password = percent_decode(u.password().unwrap_or(""));
            if !headers.iter().any(|(n, _)| *n == AUTHORIZATION) {
                use base64::Engine as _;
                let token = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
                let mut v = HeaderValue::from_str(&format!("Basic {token}"))
                    .map_err(|_| "the URL's user or password is not valid in a header".to_string())?;
                v.set_sensitive(true);
                headers.push((AUTHORIZATION, v));
            }
            let _ = u.set_username("");
            let _ = u.set_password(None);
        }
        // WebDriver paths are joined to the URL: `…/wd/hub` must end with a slash, or the
        // join would replace `hub`.
        if !u.path().ends_with('/') {
            let p = format!("{}/", u.path());
            u.set_path(&p);
        }
        Ok((u, headers))
    }
}

/// The URL without user, password, query or fragment.
fn shown(u: &url::Url) -> String {
    let mut s = u.clone();
    let _ = s.set_username("");
    let _ = s.set_password(None);
    s.set_query(None);
    s.set_fragment(None);
    s.to_string()
}

/// A string that did not parse as a URL, with anything between `//` and `@` hidden.
fn redact_raw(raw: &str) -> String {
    match (raw.find("//"), raw.rfind('@')) {
        (Some(a), Some(b)) if b > a => format!("{}//…@{}", &raw[..a], &raw[b + 1..]),
        _ => raw.split(['?', '#']).next().unwrap_or_default().to_string(),
    }
}

fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s).decode_utf8_lossy().into_owned()
}

/// Merges the configured capabilities `over` into the engine's `base`: objects merge key by
/// key (recursively), an array's entries are appended to ours (those not there already: a
/// configured `args` adds flags), `null` removes our key, and any other value replaces ours —
/// the configuration wins.
pub fn merge_capabilities(base: &mut Map<String, Value>, over: &Map<String, Value>) {
    for (k, v) in over {
        match (base.get_mut(k), v) {
            (_, Value::Null) => {
                base.remove(k);
            }
            (Some(Value::Object(b)), Value::Object(o)) => merge_capabilities(b, o),
            (Some(Value::Array(b)), Value::Array(o)) => {
                for x in o {
                    if !b.contains(x) {
                        b.push(x.clone());
                    }
                }
            }
            _ => {
                base.insert(k.clone(), v.clone());
            }
        }
    }
}

/// What a connection dials: plain TCP or TLS, by the URL's scheme.
type Dialer = hyper_rustls::HttpsConnector<HttpConnector>;

/// The connector fantoccini is given for a remote endpoint (see the module doc).
#[derive(Clone)]
pub(crate) struct Connector {
    dial: Dialer,
    headers: Arc<Vec<(HeaderName, HeaderValue)>>,
}

impl Connector {
    pub(crate) fn new(headers: Vec<(HeaderName, HeaderValue)>) -> Result<Connector, String> {
        let mut http = HttpConnector::new();
        http.enforce_http(false);
        http.set_connect_timeout(Some(Duration::from_secs(10)));
        http.set_nodelay(true);
        let dial = hyper_rustls::HttpsConnectorBuilder::new()
            .with_provider_and_webpki_roots(rustls::crypto::ring::default_provider())
            .map_err(|e| format!("setting up TLS: {e}"))?
            .https_or_http()
            .enable_http1()
            .wrap_connector(http);
        Ok(Connector { dial, headers: Arc::new(headers) })
    }
}

/// The causes of an error, outermost first, joined: hyper's own messages say little alone
/// ("client error (Connect)").
pub(crate) fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts = vec![e.to_string()];
    let mut cur = e.source();
    while let Some(s) = cur {
        let t = s.to_string();
        if !parts.iter().any(|p| p.contains(&t)) {
            parts.push(t);
        }
        cur = s.source();
    }
    parts.join(": ")
}

impl tower_service::Service<Uri> for Connector {
    type Response = Pipe;
    type Error = Box<dyn std::error::Error + Send + Sync>;
    type Future = BoxFuture<'static, Result<Pipe, Self::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        tower_service::Service::<Uri>::poll_ready(&mut self.dial, cx)
    }

    fn call(&mut self, dst: Uri) -> Self::Future {
        let where_ =
            dst.authority().map(|a| a.host().to_string() + &a.port().map(|p| format!(":{p}")).unwrap_or_default());
        let dialing = tower_service::Service::call(&mut self.dial, dst);
        let headers = self.headers.clone();
        Box::pin(async move {
            let place = where_.unwrap_or_default();
            let stream = dialing.await.map_err(|e| format!("connecting to {place}: {}", chain(&*e)))?;
            let (send, conn) = hyper::client::conn::http1::handshake::<_, Incoming>(stream)
                .await
                .map_err(|e| format!("connecting to {place}: {}", chain(&e)))?;
            let send = Arc::new(tokio::sync::Mutex::new(send));
            let (ours, theirs) = tokio::io::duplex(256 * 1024);
            let service = hyper::service::service_fn(move |mut req: Request<Incoming>| {
                let (send, headers) = (send.clone(), headers.clone());
                async move {
                    for (n, v) in headers.iter() {
                        req.headers_mut().insert(n.clone(), v.clone());
                    }
                    let sent = {
                        let mut s = send.lock().await;
                        s.ready().await?;
                        s.send_request(req)
                    };
                    sent.await
                }
            });
            // Both halves in one task: when the endpoint closes the real connection, fantoccini's
            // end is closed too (after what is in flight), so its pool does not reuse it.
            tokio::spawn(async move {
                let serve = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(theirs), service);
                let (mut serve, mut conn) = (std::pin::pin!(serve), std::pin::pin!(conn));
                let endpoint_closed = tokio::select! {
                    _ = conn.as_mut() => true,
                    _ = serve.as_mut() => false,
                };
                if endpoint_closed {
                    serve.as_mut().graceful_shutdown();
                    let _ = serve.await;
                }
            });
            Ok(Pipe::new(ours, ()))
        })
    }
}

/// fantoccini's end of a connection (see the module doc).
pub(crate) type Pipe = crate::conn::Conn<tokio::io::DuplexStream>;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn the_endpoint_is_shown_without_credentials_and_paths_end_with_a_slash() {
        let r = Remote {
            url: "https://ada:s3cret@grid.example.com:4444/wd/hub".into(),
            headers: vec![("X-Api-Key".into(), "k-123".into())],
            capabilities: obj(json!({"bstack:options": {"accessKey": "key-456"}})),
        };
        assert_eq!(r.endpoint(), "https://grid.example.com:4444/wd/hub");
        let (u, headers) = r.parts().unwrap();
        assert_eq!(u.as_str(), "https://grid.example.com:4444/wd/hub/");
        assert_eq!(u.join("session").unwrap().path(), "/wd/hub/session");
        let names: Vec<&str> = headers.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["x-api-key", "authorization"]);
        assert!(headers.iter().all(|(_, v)| v.is_sensitive()));
        assert_eq!(headers[1].1, "Basic YWRhOnMzY3JldA==");
        let shown = format!("{r:?}");
        for secret in ["s3cret", "k-123", "key-456", "ada"] {
            assert!(!shown.contains(secret), "{secret} in {shown}");
        }
        assert!(shown.contains("X-Api-Key") && shown.contains("bstack:options"), "{shown}");
        // A configured Authorization wins over the URL's user.
        let mine = Remote { headers: vec![("Authorization".into(), "Bearer t".into())], ..r.clone() };
        let (_, h) = mine.parts().unwrap();
        assert_eq!(h.iter().filter(|(n, _)| *n == AUTHORIZATION).count(), 1);
        assert_eq!(h[0].1, "Bearer t");
    }

    #[test]
    fn bad_endpoints_are_refused_saying_why_without_secrets() {
        let e = |url: &str| Remote::new(url).check().unwrap_err();
        assert!(e("ftp://grid/").contains("an http or https URL"), "{}", e("ftp://grid/"));
        let q = e("http://grid:4444/wd/hub?token=abc");
        assert!(q.contains("give a token as a header") && !q.contains("abc"), "{q}");
        let bad = e("http://ada:pw@");
        assert!(!bad.contains("pw"), "{bad}");
        assert!(e("grid:4444").contains("http or https") || e("grid:4444").contains("not a URL"));
        let h = Remote { headers: vec![("Bad Name".into(), "v".into())], ..Remote::new("http://g/") }.check();
        assert!(h.unwrap_err().contains("'Bad Name' is not an HTTP header name"));
        let v = Remote { headers: vec![("X-Key".into(), "line\nbreak-secret".into())], ..Remote::new("http://g/") };
        let v = v.check().unwrap_err();
        assert!(v.contains("x-key") && !v.contains("secret"), "{v}");
        assert!(Remote::new("http://127.0.0.1:4444").check().is_ok());
    }

    #[test]
    fn configured_capabilities_merge_over_the_engines() {
        let mut base = obj(json!({
            "browserName": "chrome",
            "goog:chromeOptions": {"args": ["--headless=new", "--window-size=800,600"], "excludeSwitches": ["enable-automation"]},
        }));
        merge_capabilities(
            &mut base,
            &obj(json!({
                "goog:chromeOptions": {"args": ["--no-sandbox", "--headless=new"], "binary": "/opt/chrome", "excludeSwitches": null},
                "platformName": "linux",
                "browserName": "chromium",
            })),
        );
        assert_eq!(
            Value::Object(base),
            json!({
                "browserName": "chromium",
                "platformName": "linux",
                "goog:chromeOptions": {"args": ["--headless=new", "--window-size=800,600", "--no-sandbox"], "binary": "/opt/chrome"},
            })
        );
    }

    #[test]
    fn percent_escapes_in_credentials_are_decoded() {
        assert_eq!(percent_decode("a%40b%3Ac"), "a@b:c");
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz"), "%zz");
    }
}
