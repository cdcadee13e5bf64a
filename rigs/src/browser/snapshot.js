// The accessibility-style snapshot: a fixed script (no caller code). arguments[0] = the
// ref attribute name, arguments[1] = the snapshot generation, arguments[2] = max lines.
// Interactive elements get `[ref=s<gen>e<n>]`; refs of older snapshots are removed.
const attr = arguments[0], gen = arguments[1], maxLines = arguments[2];
document.querySelectorAll('[' + attr + ']').forEach(e => e.removeAttribute(attr));
const lines = [];
let n = 0, truncated = false;
const IMPLICIT = {A: 'link', BUTTON: 'button', SELECT: 'combobox', TEXTAREA: 'textbox', H1: 'heading', H2: 'heading',
  H3: 'heading', H4: 'heading', H5: 'heading', H6: 'heading', IMG: 'img', NAV: 'navigation', MAIN: 'main',
  FORM: 'form', UL: 'list', OL: 'list', LI: 'listitem', TABLE: 'table', TR: 'row', TD: 'cell', TH: 'columnheader',
  DIALOG: 'dialog', LABEL: 'label', OPTION: 'option', HEADER: 'banner', FOOTER: 'contentinfo', P: 'paragraph'};
const INPUT = {checkbox: 'checkbox', radio: 'radio', button: 'button', submit: 'button', reset: 'button',
  range: 'slider', search: 'searchbox', email: 'textbox', text: 'textbox', password: 'textbox', tel: 'textbox',
  url: 'textbox', number: 'spinbutton'};
const INTERACTIVE = new Set(['link', 'button', 'textbox', 'searchbox', 'checkbox', 'radio', 'combobox', 'slider',
  'spinbutton', 'switch', 'tab', 'menuitem', 'option']);
const NAME_FROM_CONTENT = new Set(['link', 'button', 'heading', 'label', 'paragraph', 'listitem', 'cell',
  'columnheader', 'option', 'tab', 'menuitem', 'checkbox', 'radio', 'switch']);
function role(e) {
  const r = e.getAttribute('role');
  if (r) return r.split(' ')[0];
  if (e.tagName === 'INPUT') return e.type === 'hidden' ? null : (INPUT[e.type] || 'textbox');
  if (e.tagName === 'A' && !e.hasAttribute('href')) return null;
  if (e.isContentEditable && e === e.closest('[contenteditable]')) return 'textbox';
  return IMPLICIT[e.tagName] || null;
}
function visible(e) {
  if (e.getClientRects().length === 0) return false;
  const s = getComputedStyle(e);
  return s.visibility !== 'hidden' && s.display !== 'none';
}
function clip(s, k) { s = (s || '').replace(/\s+/g, ' ').trim(); return s.length > k ? s.slice(0, k) + '…' : s; }
function name(e, r) {
  const l = e.getAttribute('aria-label'); if (l) return clip(l, 100);
  const by = e.getAttribute('aria-labelledby');
  if (by) return clip(by.split(' ').map(id => (document.getElementById(id) || {}).innerText || '').join(' '), 100);
  if (e.labels && e.labels.length) return clip(e.labels[0].innerText, 100);
  if (e.tagName === 'IMG') return clip(e.alt, 100);
  if (r === 'textbox' || r === 'searchbox' || r === 'combobox' || r === 'spinbutton')
    return clip(e.getAttribute('placeholder') || e.title || e.name, 100);
  if (e.tagName === 'INPUT' && (e.type === 'submit' || e.type === 'button' || e.type === 'reset')) return clip(e.value, 100);
  if (NAME_FROM_CONTENT.has(r)) return clip(e.innerText || e.title, 100);
  return clip(e.title, 100);
}
function emit(s) { if (lines.length >= maxLines) { truncated = true; return false; } lines.push(s); return true; }
function walk(e, depth) {
  if (truncated || !visible(e)) return;
  const r = role(e);
  let d = depth;
  if (r) {
    const nm = name(e, r);
    let line = '  '.repeat(depth) + '- ' + r + (nm ? ' ' + JSON.stringify(nm) : '');
    if (r === 'heading') line += ' [level=' + e.tagName.slice(1) + ']';
    if (e.disabled) line += ' [disabled]';
    if (r === 'checkbox' || r === 'radio') line += e.checked ? ' [checked]' : '';
    if (document.activeElement === e) line += ' [active]';
    if (INTERACTIVE.has(r) || e.hasAttribute('onclick') || e.hasAttribute('tabindex')) {
      n += 1;
      const ref = 's' + gen + 'e' + n;
      e.setAttribute(attr, ref);
      line += ' [ref=' + ref + ']';
    }
    if (e.tagName === 'A' && e.href) line += ' [url=' + e.getAttribute('href') + ']';
    if ('value' in e && (r === 'textbox' || r === 'searchbox' || r === 'combobox' || r === 'spinbutton') && e.type !== 'password')
      line += ': ' + JSON.stringify(clip(e.tagName === 'SELECT' ? (e.selectedOptions[0] || {}).text : e.value, 200));
    if (!emit(line)) return;
    d = depth + 1;
    if (INTERACTIVE.has(r) || r === 'heading' || r === 'img' || r === 'paragraph' || r === 'label' || r === 'cell' || r === 'columnheader') {
      if (e.tagName === 'SELECT') for (const o of e.options) emit('  '.repeat(d) + '- option ' + JSON.stringify(clip(o.text, 100)) + (o.selected ? ' [selected]' : ''));
      return;
    }
  }
  for (const c of e.childNodes) {
    if (c.nodeType === 3) {
      const t = clip(c.textContent, 200);
      if (t && !emit('  '.repeat(d) + '- text: ' + JSON.stringify(t))) return;
    } else if (c.nodeType === 1) walk(c, d);
  }
}
if (document.body) walk(document.body, 0);
return {lines: lines.join('\n'), refs: n, truncated: truncated, title: document.title, url: location.href};
