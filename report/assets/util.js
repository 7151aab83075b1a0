// util.js: the page's settings and small DOM and formatting helpers. Text
// from an artifact reaches the page only through el() (textContent) and
// attribute values, never as markup or code.
const CONFIG = JSON.parse(document.getElementById('report-config').textContent);
const list = (v) => (Array.isArray(v) ? v : []);

function $(id) {
  return document.getElementById(id);
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

function add(parent, child) {
  parent.appendChild(child);
  return child;
}

function badge(parent, cls, text) {
  return add(parent, el('span', 'badge ' + cls, text));
}

function plural(n, one, many) {
  return thousands(n) + ' ' + (n === 1 ? one : many || one + 's');
}

function thousands(n) {
  return (typeof n === 'number' ? n : 0).toLocaleString('en-US');
}

function us(v) {
  return thousands(v) + ' µs';
}

// durationText writes milliseconds the way Go's time.Duration prints them
// (the CLI's flags and messages use that form): 250ms, 1.5s, 1m30s, 1h0m0s.
function durationText(ms) {
  if (!ms) return '';
  if (Math.abs(ms) < 1000) return ms + 'ms';
  let s = Math.abs(ms) / 1000;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s = Math.round((s - m * 60) * 1000) / 1000;
  return (ms < 0 ? '-' : '') + (h ? h + 'h' : '') + (h || m ? m + 'm' : '') + s + 's';
}

// shellQuote quotes s for a POSIX shell when it needs it (report.ShellQuote).
function shellQuote(s) {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(s) ? s : "'" + s.split("'").join("'\\''") + "'";
}

function keyOf(r) {
  return r.actor + '\u0000' + r.conn + '\u0000' + r.unit;
}

function refText(r) {
  return r.actor + ' #' + r.conn + '.' + r.unit;
}

function txWords(s) {
  return ({ I: 'idle (I)', T: 'in a transaction (T)', E: 'in a failed transaction (E)' })[s] || s || '—';
}

// messageWords names the client message types a unit sent, in the order the
// artifact records them ("PDS" is Parse, Describe, Sync).
const MESSAGE_NAMES = {
  Q: 'Query', P: 'Parse', B: 'Bind', D: 'Describe', E: 'Execute', S: 'Sync', C: 'Close', H: 'Flush',
  F: 'FunctionCall', d: 'CopyData', c: 'CopyDone', f: 'CopyFail',
};

function messageWords(m) {
  if (!m) return '—';
  return [...m].map((c) => MESSAGE_NAMES[c] || c).join(', ') + ' (' + m + ')';
}
