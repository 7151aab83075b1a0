// util.js: the artifact and small DOM helpers. The artifact is data: it
// reaches the page only as textContent and attribute values, never as markup
// or code.
const A = JSON.parse(document.getElementById('artifact-data').textContent);
const list = (v) => (Array.isArray(v) ? v : []);
const units = list(A.units);
const decisions = list(A.schedule && A.schedule.decisions);
const actors = list(A.scenario && A.scenario.actors);

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

function keyOf(r) {
  return r.actor + '\u0000' + r.conn + '\u0000' + r.unit;
}

function refText(r) {
  return r.actor + ' #' + r.conn + '.' + r.unit;
}

const unitByKey = new Map(units.map((u) => [keyOf(u), u]));
const laneOf = new Map(actors.map((a, i) => [a, i]));

function us(v) {
  return (typeof v === 'number' ? v : 0).toLocaleString('en-US') + ' µs';
}

function sqlText(u) {
  return list(u.sql).join(';\n');
}

function released(u) {
  return typeof u.releaseStep === 'number' && u.releaseStep >= 0 && u.releaseStep < decisions.length;
}

function decisionOf(u) {
  return released(u) ? decisions[u.releaseStep] : null;
}

function isPair(u) {
  const d = decisionOf(u);
  return !!u.pair || (d !== null && list(d.release).length > 1);
}

function isChoice(u) {
  const d = decisionOf(u);
  return d !== null && !!d.choice;
}

function hasError(u) {
  return !!(u.sqlstate || u.error);
}

function waits(u) {
  return list(u.lockWaits);
}

// blockers are the actors (or backend PIDs) a unit waited on.
function blockers(u) {
  const seen = [];
  for (const w of waits(u)) {
    const names = list(w.blockingActors).length ? list(w.blockingActors) : list(w.blockingPids).map((p) => 'PID ' + p);
    for (const n of names) if (!seen.includes(String(n))) seen.push(String(n));
  }
  return seen.length ? seen : ['another session'];
}

function txWords(s) {
  return ({ I: 'idle (I)', T: 'in a transaction (T)', E: 'in a failed transaction (E)' })[s] || s || '—';
}

function actorClass(actor) {
  const i = laneOf.has(actor) ? laneOf.get(actor) : 0;
  return 'actor-c' + (i % 8);
}

function badge(parent, cls, text) {
  return add(parent, el('span', 'badge ' + cls, text));
}
