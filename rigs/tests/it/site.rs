//! The fixture site the browser tests drive: a form, a link to a second page, console
//! messages, a button that changes the DOM, a red box at a known place, and a redirect
//! to another origin — served over HTTP on 127.0.0.1 by a thread of the test.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;

pub const HOME: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Fixture home</title></head>
<body style="margin:0;background:#ffffff;font-family:sans-serif">
<h1>Fixture home</h1>
<form id="f" onsubmit="return false">
  <label for="name">Name</label> <input id="name" name="name" type="text">
  <select id="color" aria-label="Color"><option value="r">Red</option><option value="g">Green</option></select>
  <button type="button" id="greet" onclick="document.getElementById('out').textContent = 'Hello, ' + document.getElementById('name').value; console.log('greeted', document.getElementById('name').value)">Greet</button>
</form>
<p id="out"></p>
<a id="next" href="/second">Second page</a>
<button type="button" id="add" onclick="const p = document.createElement('p'); p.id = 'added'; p.textContent = 'Added by click'; document.body.appendChild(p); console.warn('added a paragraph')">Add</button>
<div id="red" onclick="this.textContent = 'red clicked'" style="position:absolute;left:0;top:300px;width:300px;height:200px;background:rgb(255,0,0)"></div>
<script>console.log('loaded home')</script>
</body></html>"#;

/// Form controls as pages write them: wrapped in labels inside divs, labelled by `for`, by
/// aria-labelledby, by a placeholder only; a textarea, radios in a fieldset, a checkbox, a
/// custom button, a submit input; and what a person does not see (aria-hidden, display:none,
/// a hidden input, a closed details).
pub const FORMS: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Forms</title></head><body><main>
<h2>Sign up</h2>
<form aria-label="Sign up" onsubmit="return false">
  <div class="row"><label>Email <input type="email" name="email" value="ada@example.org" required></label></div>
  <div><div><label>Bio <textarea name="bio">Counts engines</textarea></label></div></div>
  <label for="pw">Password</label><input id="pw" type="password" value="secret-value">
  <span id="cityl">City</span><input aria-labelledby="cityl" value="London">
  <input type="search" placeholder="Search the docs">
  <fieldset><legend>Plan</legend>
    <label><input type="radio" name="plan" value="free" checked> Free</label>
    <label><input type="radio" name="plan" value="pro"> Pro</label>
  </fieldset>
  <label><input type="checkbox" name="terms"> I agree</label>
  <div role="button" tabindex="0">Custom action</div>
  <input type="submit" value="Create account">
  <input type="hidden" name="csrf" value="csrf-token">
</form>
<div aria-hidden="true"><button>Hidden button</button></div>
<p style="display:none">Invisible text</p>
<details><summary>More</summary><p>Inside the details</p></details>
</main></body></html>"#;

pub const SECOND: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Second page</title></head>
<body><h1>Second page</h1><p>You made it</p><a href="/">Home</a></body></html>"#;

/// Serves the site until the process ends; returns its port.
pub fn serve() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for s in l.incoming() {
            let Ok(mut s) = s else { continue };
            std::thread::spawn(move || {
                let mut r = BufReader::new(s.try_clone().unwrap());
                let mut line = String::new();
                if r.read_line(&mut line).is_err() {
                    return;
                }
                loop {
                    let mut h = String::new();
                    if r.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" || h == "\n" {
                        break;
                    }
                }
                let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
                let (status, extra, body) = match path.as_str() {
                    "/" => ("200 OK", String::new(), HOME),
                    "/second" => ("200 OK", String::new(), SECOND),
                    "/forms" => ("200 OK", String::new(), FORMS),
                    // Another origin: the same server under another host name.
                    "/redirect-out" => ("302 Found", format!("Location: http://localhost:{port}/second\r\n"), ""),
                    _ => ("404 Not Found", String::new(), "not here"),
                };
                let _ = write!(
                    s,
                    "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n{extra}\r\n{body}",
                    body.len()
                );
            });
        }
    });
    port
}
