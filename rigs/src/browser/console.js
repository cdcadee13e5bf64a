// Console capture: a fixed script (no caller code). arguments[0] = the buffer's property
// name. Wraps console.* and records uncaught errors into window[name] (max 500 entries);
// installed once per document (after every action that may load one).
const key = arguments[0];
if (!window[key]) {
  const buf = [];
  Object.defineProperty(window, key, {value: buf, enumerable: false});
  const push = (level, args) => {
    try {
      const text = Array.from(args).map(a => {
        if (typeof a === 'string') return a;
        try { return JSON.stringify(a); } catch (e) { return String(a); }
      }).join(' ');
      buf.push({level: level, text: text.slice(0, 2000), url: location.href});
      if (buf.length > 500) buf.shift();
    } catch (e) {}
  };
  for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
    const orig = console[level];
    console[level] = function () { push(level, arguments); return orig.apply(this, arguments); };
  }
  window.addEventListener('error', e => push('error', ['uncaught: ' + e.message]));
  window.addEventListener('unhandledrejection', e => push('error', ['unhandled rejection: ' + e.reason]));
}
return true;
