// The accessibility snapshot: a fixed script (no caller code). arguments[0] = the ref
// attribute name, arguments[1] = the snapshot generation, arguments[2] = max lines.
//
// The tree is the page's accessibility tree as Playwright's aria snapshot shows it: each
// element with a role (explicit, else the HTML element's implicit ARIA role) is a line
// `- role "accessible name" [states]`, elements without one (div, span, label, an unnamed
// form or section) add no line and their children stand in their place, text is `- text:`.
// Names follow the accessible-name computation's order: aria-labelledby, aria-label, the
// control's labels (`<label for>` or a wrapping label, the control itself left out), alt,
// legend, caption, title, placeholder; name-from-content roles take their text. Form
// controls show their value (`: "…"`), except passwords. Every interactive or focusable
// element gets `[ref=s<gen>e<n>]`; refs of older snapshots are removed. Open shadow roots
// and slotted content are walked; hidden, aria-hidden and inert subtrees are not.
const attr = arguments[0], gen = arguments[1], maxLines = arguments[2];
for (const e of document.querySelectorAll('[' + attr + ']')) e.removeAttribute(attr);
const lines = [];
let n = 0, count = 0, truncated = false;

const INPUT = {checkbox: 'checkbox', radio: 'radio', button: 'button', submit: 'button', reset: 'button',
  image: 'button', file: 'button', range: 'slider', number: 'spinbutton', search: 'searchbox', color: 'button'};
const IMPLICIT = {BUTTON: 'button', SUMMARY: 'button', TEXTAREA: 'textbox', OPTION: 'option', H1: 'heading',
  H2: 'heading', H3: 'heading', H4: 'heading', H5: 'heading', H6: 'heading', NAV: 'navigation', MAIN: 'main',
  UL: 'list', OL: 'list', MENU: 'list', LI: 'listitem', TABLE: 'table', TR: 'row', TD: 'cell', CAPTION: 'caption',
  THEAD: 'rowgroup', TBODY: 'rowgroup', TFOOT: 'rowgroup', DIALOG: 'dialog', P: 'paragraph', ASIDE: 'complementary',
  ARTICLE: 'article', FIELDSET: 'group', DETAILS: 'group', OPTGROUP: 'group', PROGRESS: 'progressbar',
  METER: 'meter', OUTPUT: 'status', HR: 'separator', BLOCKQUOTE: 'blockquote', DL: 'list', DT: 'term',
  DD: 'definition', FIGURE: 'figure', ADDRESS: 'group', CODE: 'code', STRONG: 'strong', EM: 'emphasis'};
const INTERACTIVE = new Set(['link', 'button', 'textbox', 'searchbox', 'checkbox', 'radio', 'combobox', 'listbox',
  'slider', 'spinbutton', 'switch', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'treeitem',
  'gridcell']);
// Roles named by their content (ARIA "name from: contents").
const FROM_CONTENT = new Set(['link', 'button', 'heading', 'cell', 'columnheader', 'rowheader', 'gridcell',
  'option', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'checkbox', 'radio', 'switch', 'treeitem',
  'tooltip', 'term', 'caption', 'status', 'code', 'strong', 'emphasis']);
// Roles whose children are presentational: one line, nothing under it.
const LEAF = new Set(['button', 'checkbox', 'radio', 'switch', 'img', 'textbox', 'searchbox', 'slider',
  'spinbutton', 'progressbar', 'meter', 'separator', 'menuitemcheckbox', 'menuitemradio', 'scrollbar']);
const VALUED = new Set(['textbox', 'searchbox', 'combobox', 'spinbutton', 'slider']);

function clip(s, k) { s = (s || '').replace(/\s+/g, ' ').trim(); return s.length > k ? s.slice(0, k) + '…' : s; }
function isControl(e) { return e.tagName === 'INPUT' || e.tagName === 'SELECT' || e.tagName === 'TEXTAREA'; }
function focusable(e) {
  if (e.hasAttribute('tabindex') && e.tabIndex >= 0) return true;
  return e.isContentEditable && e === e.closest('[contenteditable]');
}

function implicitRole(e) {
  const t = e.tagName;
  if (t === 'A' || t === 'AREA') return e.hasAttribute('href') ? 'link' : null;
  if (t === 'INPUT') {
    const type = (e.getAttribute('type') || 'text').toLowerCase();
    if (type === 'hidden') return null;
    if (INPUT[type]) return INPUT[type];
    return e.hasAttribute('list') ? 'combobox' : 'textbox';
  }
  if (t === 'SELECT') return e.multiple || e.size > 1 ? 'listbox' : 'combobox';
  if (t === 'IMG') return e.getAttribute('alt') === '' && !e.title ? null : 'img';
  if (t === 'TH') return e.closest('thead') || e.getAttribute('scope') === 'col' ? 'columnheader'
    : e.getAttribute('scope') === 'row' ? 'rowheader' : 'columnheader';
  if (t === 'HEADER' || t === 'FOOTER')
    return e.parentElement && e.parentElement.closest('article, aside, main, nav, section') ? null
      : t === 'HEADER' ? 'banner' : 'contentinfo';
  if (t === 'FORM' || t === 'SECTION') return accessibleLabel(e) ? (t === 'FORM' ? 'form' : 'region') : null;
  if (e.isContentEditable && e === e.closest('[contenteditable]')) return 'textbox';
  return IMPLICIT[t] || null;
}

function role(e) {
  const explicit = (e.getAttribute('role') || '').trim().split(/\s+/)[0];
  if (explicit === 'none' || explicit === 'presentation') return focusable(e) ? implicitRole(e) : null;
  if (explicit === 'generic') return null;
  return explicit || implicitRole(e);
}

// The text an element contributes to a name computed from content (accname step 2F):
// embedded controls give their value, images their alt, hidden parts nothing.
function contentText(e, skip) {
  let out = '';
  for (const c of childrenOf(e)) {
    if (c.nodeType === 3) { out += c.textContent; continue; }
    if (c.nodeType !== 1 || c === skip || hidden(c)) continue;
    const l = c.getAttribute('aria-label');
    if (l) { out += ' ' + l + ' '; continue; }
    if (c.tagName === 'IMG') { out += ' ' + (c.getAttribute('alt') || '') + ' '; continue; }
    if (c.tagName === 'SELECT') { out += ' ' + ((c.selectedOptions && c.selectedOptions[0]) || {text: ''}).text + ' '; continue; }
    if (c.tagName === 'INPUT' || c.tagName === 'TEXTAREA') {
      if (c.type !== 'password' && c.type !== 'hidden' && c.type !== 'checkbox' && c.type !== 'radio') out += ' ' + (c.value || '') + ' ';
      continue;
    }
    const s = getComputedStyle(c).display;
    const block = s !== 'inline' && s !== 'contents' && s !== 'inline-block';
    out += (block ? ' ' : '') + contentText(c, skip) + (block ? ' ' : '');
  }
  return out;
}

function byIds(ids, skip) {
  return ids.split(/\s+/).map(id => { const r = document.getElementById(id); return r ? (r.getAttribute('aria-label') || contentText(r, skip)) : ''; }).join(' ');
}

// aria-labelledby, aria-label, then what the element's own markup labels it with.
function accessibleLabel(e) {
  const by = e.getAttribute('aria-labelledby');
  if (by) { const s = clip(byIds(by, e), 100); if (s) return s; }
  const l = e.getAttribute('aria-label');
  if (l && l.trim()) return clip(l, 100);
  if (isControl(e) && e.labels && e.labels.length)
    return clip(Array.from(e.labels).map(lb => contentText(lb, e)).join(' '), 100);
  return '';
}

function accessibleName(e, r) {
  const own = accessibleLabel(e);
  if (own) return own;
  const t = e.tagName;
  if (t === 'INPUT') {
    const type = (e.getAttribute('type') || 'text').toLowerCase();
    if (type === 'submit' || type === 'reset' || type === 'button')
      return clip(e.value || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : ''), 100);
    if (type === 'image') return clip(e.alt || e.title || 'Submit', 100);
  }
  if (t === 'IMG' || t === 'AREA') return clip(e.getAttribute('alt') || e.title, 100);
  if (t === 'FIELDSET') { const lg = e.querySelector(':scope > legend'); if (lg) return clip(contentText(lg), 100); }
  if (t === 'TABLE' && e.caption) return clip(contentText(e.caption), 100);
  if (t === 'FIGURE') { const fc = e.querySelector(':scope > figcaption'); if (fc) return clip(contentText(fc), 100); }
  if (t === 'DETAILS') { const sm = e.querySelector(':scope > summary'); if (sm) return clip(contentText(sm), 100); }
  if (FROM_CONTENT.has(r) && !isControl(e)) { const s = clip(contentText(e), 100); if (s) return s; }
  if (e.title) return clip(e.title, 100);
  if (VALUED.has(r) || t === 'TEXTAREA') return clip(e.getAttribute('placeholder') || '', 100);
  return '';
}

function value(e, r) {
  if (e.tagName === 'SELECT') return e.multiple ? null : ((e.selectedOptions && e.selectedOptions[0]) || {text: ''}).text;
  if (e.tagName === 'INPUT' || e.tagName === 'TEXTAREA') return e.type === 'password' ? null : e.value;
  if (e.getAttribute('aria-valuetext')) return e.getAttribute('aria-valuetext');
  if (e.getAttribute('aria-valuenow')) return e.getAttribute('aria-valuenow');
  if (e.isContentEditable && VALUED.has(r)) return e.innerText;
  return null;
}

function states(e, r) {
  let s = '';
  if (r === 'heading') {
    const lv = e.getAttribute('aria-level') || (/^H[1-6]$/.test(e.tagName) ? e.tagName.slice(1) : '2');
    s += ' [level=' + lv + ']';
  }
  const checked = e.getAttribute('aria-checked');
  if (r === 'checkbox' || r === 'radio' || r === 'switch' || r === 'menuitemcheckbox' || r === 'menuitemradio') {
    if (e.indeterminate || checked === 'mixed') s += ' [checked=mixed]';
    else if (('checked' in e && e.checked) || checked === 'true') s += ' [checked]';
  }
  if (e.disabled || e.getAttribute('aria-disabled') === 'true' || (e.closest && e.closest('fieldset[disabled]') && isControl(e))) s += ' [disabled]';
  const expanded = e.getAttribute('aria-expanded');
  if (expanded) s += expanded === 'true' ? ' [expanded]' : ' [expanded=false]';
  else if (e.tagName === 'DETAILS') s += e.open ? ' [expanded]' : ' [expanded=false]';
  const pressed = e.getAttribute('aria-pressed');
  if (pressed === 'true') s += ' [pressed]';
  else if (pressed === 'mixed') s += ' [pressed=mixed]';
  if ((e.tagName === 'OPTION' && e.selected) || e.getAttribute('aria-selected') === 'true') s += ' [selected]';
  if ((isControl(e) && e.required) || e.getAttribute('aria-required') === 'true') s += ' [required]';
  if (document.activeElement === e || (document.activeElement && document.activeElement.shadowRoot && document.activeElement.shadowRoot.activeElement === e)) s += ' [active]';
  return s;
}

function hidden(e) {
  if (e.hidden || e.inert || e.getAttribute('aria-hidden') === 'true') return true;
  if (e.tagName === 'SCRIPT' || e.tagName === 'STYLE' || e.tagName === 'NOSCRIPT' || e.tagName === 'TEMPLATE' || e.tagName === 'HEAD') return true;
  const s = getComputedStyle(e);
  return s.display === 'none';
}

// An element's children in the flat tree: its open shadow root's, a slot's assigned nodes.
function childrenOf(e) {
  // A closed details shows its summary only.
  if (e.tagName === 'DETAILS' && !e.open) return Array.from(e.children).filter(c => c.tagName === 'SUMMARY');
  if (e.shadowRoot) return Array.from(e.shadowRoot.childNodes);
  if (e.tagName === 'SLOT') { const a = e.assignedNodes(); return a.length ? a : Array.from(e.childNodes); }
  return Array.from(e.childNodes);
}

function emit(out, s) { if (count >= maxLines) { truncated = true; return false; } out.push(s); count += 1; return true; }

// The lines of `e`'s subtree at `depth`, into `out`.
function walk(e, depth, out) {
  if (truncated || hidden(e)) return;
  const style = getComputedStyle(e);
  const shown = style.visibility !== 'hidden' && style.visibility !== 'collapse' && (style.display === 'contents' || e.getClientRects().length > 0);
  let r = shown ? role(e) : null;
  // A focusable element without a role (a div with tabindex) is still something to act on.
  if (!r && shown && focusable(e)) r = 'generic';
  if (!r) {
    // No line of its own (generic, or invisible itself): its children stand in its place.
    for (const c of childrenOf(e)) {
      if (c.nodeType === 3) {
        if (!shown) continue;
        const t = clip(c.textContent, 200);
        if (t && !emit(out, '  '.repeat(depth) + '- text: ' + JSON.stringify(t))) return;
      } else if (c.nodeType === 1) walk(c, depth, out);
    }
    return;
  }
  const nm = accessibleName(e, r);
  let line = '  '.repeat(depth) + '- ' + r + (nm ? ' ' + JSON.stringify(nm) : '') + states(e, r);
  if (INTERACTIVE.has(r) || focusable(e) || e.hasAttribute('onclick')) {
    n += 1;
    const ref = 's' + gen + 'e' + n;
    e.setAttribute(attr, ref);
    line += ' [ref=' + ref + ']';
  }
  if (r === 'link' && e.getAttribute('href')) line += ' [url=' + e.getAttribute('href') + ']';
  const v = VALUED.has(r) || r === 'combobox' ? value(e, r) : null;
  if (v !== null && v !== undefined) line += ': ' + JSON.stringify(clip(v, 200));
  if (!emit(out, line)) return;
  if (LEAF.has(r) || (isControl(e) && e.tagName !== 'SELECT')) return;
  const inner = [];
  if (e.tagName === 'SELECT') {
    for (const o of e.options) emit(inner, '  '.repeat(depth + 1) + '- option ' + JSON.stringify(clip(o.text, 100)) + (o.selected ? ' [selected]' : ''));
  } else {
    for (const c of childrenOf(e)) {
      if (c.nodeType === 3) {
        const t = clip(c.textContent, 200);
        if (t && !emit(inner, '  '.repeat(depth + 1) + '- text: ' + JSON.stringify(t))) break;
      } else if (c.nodeType === 1) walk(c, depth + 1, inner);
    }
  }
  // A name taken from the content says the content already: a lone text line repeating it goes.
  if (inner.length === 1 && inner[0].trim() === '- text: ' + JSON.stringify(nm)) { count -= 1; return; }
  for (const l of inner) out.push(l);
}

const root = [];
if (document.body) walk(document.body, 0, root);
for (const l of root) lines.push(l);
return {lines: lines.join('\n'), refs: n, truncated: truncated, title: document.title, url: location.href};
