// The console's one script: live pages. A page whose <body> names events in data-live
// ("message approval run ticket") listens to /ui/events and, when one arrives, reads itself
// again and swaps its <main> in place (no reload; the scroll position stays). A message event
// counts only for the page's space (data-space) when it names one. While the operator types
// in a field the swap waits until the field loses focus.
(function () {
  "use strict";
  var body = document.body;
  var kinds = (body.dataset.live || "").split(" ").filter(Boolean);
  if (!kinds.length || !window.EventSource || !window.fetch) return;
  var space = body.dataset.space || "";
  var badge = document.getElementById("live");
  var busy = false, again = false;

  function typing() {
    var a = document.activeElement;
    return a && (a.tagName === "TEXTAREA" || (a.tagName === "INPUT" && a.type !== "submit" && a.type !== "hidden")) && a.value !== "";
  }

  function refresh() {
    if (busy || typing()) { again = true; return; }
    busy = true;
    fetch(location.href, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        if (!html) return;
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.querySelector("main"), old = document.querySelector("main");
        if (fresh && old) old.replaceWith(fresh);
        var w = doc.getElementById("waiting"), cur = document.getElementById("waiting");
        if (cur && !w) cur.remove();
        else if (cur && w) cur.textContent = w.textContent;
        body.dataset.refreshed = String(Date.now());
      })
      .catch(function () {})
      .then(function () { busy = false; if (again) { again = false; refresh(); } });
  }

  function state(text, cls) {
    if (badge) { badge.textContent = text; badge.className = "live " + cls; }
  }

  var es = new EventSource("/ui/events?ws=" + encodeURIComponent(body.dataset.ws || ""));
  var opened = false;
  es.addEventListener("ready", function () {
    state("live", "on");
    // Anything that changed between this page's load and the stream's start.
    if (opened) refresh();
    opened = true;
  });
  kinds.forEach(function (k) {
    es.addEventListener(k, function (e) {
      if (k === "message" && space) {
        try { if (JSON.parse(e.data).space_id !== space) return; } catch (_) { return; }
      }
      refresh();
    });
  });
  es.addEventListener("resync", refresh);
  es.onerror = function () { state("reconnecting…", "off"); };
  // A page left behind keeps no connection (the browser allows few per server).
  window.addEventListener("pagehide", function () { es.close(); });
  document.addEventListener("focusout", function () { if (again) { again = false; setTimeout(refresh, 0); } });
})();
