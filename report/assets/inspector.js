// inspector.js: the selected unit in full, the print table of every unit,
// and the copy button.
const inspector = $('inspector-body');

function row(dl, term, value) {
  add(dl, el('dt', null, term));
  const dd = add(dl, el('dd'));
  if (value instanceof Node) add(dd, value);
  else dd.textContent = value === undefined || value === null || value === '' ? '—' : String(value);
  return dd;
}

function sqlBlock(u) {
  const wrap = el('div', 'sql-list');
  const sql = list(u.sql);
  if (!sql.length) add(wrap, el('span', 'none', 'no SQL (client messages ' + messageWords(u.messages) + ')'));
  sql.forEach((q) => add(wrap, el('pre', 'sql', q)));
  return wrap;
}

// paramView is how the page shows one bound parameter, and the one place
// that knows how the artifact records them: today a rendered string per
// parameter (artifact.BinaryParam reads the same form), where a parameter
// sent in binary is `\xHEX (binary; as int4 N)` or `\xHEX (binary)`. When
// parameters become structured data, this function is what changes.
function paramView(p) {
  // A parameter as recorded (artifact.Param): null, text, or the bytes in
  // hex with an integer reading for 4 and 8 binary bytes.
  if (p.null) return { value: 'NULL', note: '' };
  const kept = p.hex ? p.hex.length / 2 : new TextEncoder().encode(p.text || '').length;
  const cut = p.size > kept ? ', cut at ' + kept + ' of ' + p.size + ' bytes' : '';
  if (!p.binary && !p.hex) return { value: p.text || '', note: cut.slice(2) };
  const hex = '\\x' + (p.hex || '');
  if (p.int !== undefined && p.int !== null) return { value: String(p.int), note: (p.size === 8 ? 'int8' : 'int4') + ', sent in binary as ' + hex + cut };
  return { value: hex, note: (p.binary ? 'binary' : 'text, not UTF-8') + cut };
}

function paramsBlock(u) {
  const binds = u.params;
  if (!binds.some((b) => list(b).length)) return 'none';
  const ul = el('ul', 'params');
  binds.forEach((b, i) => {
    const li = add(ul, el('li'));
    if (binds.length > 1) add(li, el('span', 'muted', 'Bind ' + (i + 1) + ': '));
    if (!list(b).length) add(li, el('span', 'muted', 'no parameters'));
    list(b).forEach((p, j) => {
      const v = paramView(p);
      add(li, el('span', 'param-name', '$' + (j + 1) + ' = '));
      add(li, el('code', 'param', v.value));
      if (v.note) add(li, el('span', 'param-note', ' (' + v.note + ')'));
      if (j < list(b).length - 1) add(li, document.createTextNode('  '));
    });
  });
  return ul;
}

function waitsBlock(u) {
  const ws = waits(u);
  if (!ws.length) return 'none';
  const ul = el('ul', 'waits');
  for (const w of ws) {
    const pids = w.blockingPids.length ? ' (backend PID ' + w.blockingPids.join(', ') + ')' : '';
    const who = w.blockingActors.length ? w.blockingActors.join(', ') : 'a session that is not an actor';
    add(ul, el('li', 'lock-wait', 'waited on ' + who + pids + ', reported at step ' + w.step + ', ' + us(w.atUs)));
  }
  return ul;
}

function timesBlock(u) {
  const ul = el('ul', 'times');
  add(ul, el('li', null, 'pending at ' + us(u.pendingUs) + ' (from step ' + u.pendingStep + ')'));
  if (released(u)) add(ul, el('li', null, 'released at ' + us(u.releasedUs) + ' (step ' + u.releaseStep + '), after ' + us(u.releasedUs - u.pendingUs) + ' at the gate'));
  else add(ul, el('li', null, 'never released'));
  if (u.completed) add(ul, el('li', null, 'completed at ' + us(u.completedUs) + (released(u) ? ', ' + us(u.completedUs - u.releasedUs) + ' in PostgreSQL' : '')));
  else add(ul, el('li', null, 'never completed'));
  return ul;
}

function refButtons(refs) {
  if (!refs.length) return 'none';
  const ul = el('ul', 'refs');
  for (const r of refs) {
    const li = add(ul, el('li'));
    const other = M.unitByKey.get(keyOf(r));
    const b = add(li, el('button', 'ref ' + actorClass(r.actor), refText(r)));
    b.type = 'button';
    if (other) {
      add(li, el('span', 'ref-sql', ' ' + (sqlText(other).split('\n')[0] || other.messages || '')));
      b.addEventListener('click', () => {
        select(other);
        reveal(other, true);
      });
    } else b.disabled = true;
  }
  return ul;
}

function decisionText(u) {
  const d = decisionOf(u);
  if (!d) return 'never released';
  const parts = ['step ' + d.step + ': ' + (d.choice ? 'a choice (not the default order)' : 'the default order')];
  if (d.release.length > 1) parts.push('released as a pair with ' + d.release.filter((r) => keyOf(r) !== keyOf(u)).map(refText).join(', '));
  parts.push(d.candidates.length + ' candidate' + (d.candidates.length === 1 ? '' : 's'));
  if (d.blocked.length) parts.push('waiting on locks: ' + d.blocked.map(refText).join(', '));
  return parts.join('; ');
}

function renderInspector(u) {
  inspector.replaceChildren();
  const title = add(inspector, el('h3', 'insp-title ' + actorClass(u.actor)));
  add(title, el('span', 'actor-name', u.actor));
  add(title, el('span', 'muted', ' connection ' + u.conn + ', unit ' + u.unit + (released(u) ? ', step ' + u.releaseStep : '')));
  if (u === M.failing) add(inspector, el('p', 'insp-failing', 'The failing step: ' + failingReason(u)));
  if (hasError(u)) add(inspector, el('p', 'insp-error', (u.sqlstate ? 'SQLSTATE ' + u.sqlstate + ': ' : '') + (u.error || '')));
  if (waits(u).length) add(inspector, el('p', 'insp-wait lock-wait', 'Waited on ' + blockers(u).join(', ') + "'s lock"));
  const dl = add(inspector, el('dl', 'kv insp'));
  row(dl, 'SQL', sqlBlock(u));
  row(dl, 'Parameters', paramsBlock(u));
  row(dl, 'Protocol', (u.protocol || '—') + (u.prepare ? ', a statement preparation' : '') + (u.copy ? ', COPY ' + u.copy : ''));
  row(dl, 'Client messages', messageWords(u.messages));
  row(dl, 'Command tags', u.tags.join(', ') || 'none');
  row(dl, 'Rows returned', u.rows);
  row(dl, 'Transaction status', txWords(u.txStatus));
  row(dl, 'SQLSTATE', u.sqlstate || 'none');
  row(dl, 'Error', u.error || 'none');
  row(dl, 'Lock waits', waitsBlock(u));
  row(dl, 'Times', timesBlock(u));
  row(dl, 'Decision', decisionText(u));
  row(dl, 'Alternatives at its decision', refButtons(list(u.alternatives)));
  row(dl, 'Backend PID', u.backendPid);
  row(dl, 'Unit hash', u.hash);
}

function select(u) {
  M.selected = u;
  if (!T.boxes.some((x) => x.u === u)) {
    const p = pageOf(u);
    if (p >= 0) showPage(p);
  }
  for (const x of T.boxes) {
    const on = x.u === u;
    x.box.classList.toggle('selected', on);
    x.box.setAttribute('aria-pressed', on ? 'true' : 'false');
  }
  renderInspector(u);
}

function failingReason(u) {
  if (hasError(u)) return 'PostgreSQL answered it with an error.';
  if (changedRows(u) > 0) return 'the last unit to change rows before the invariant was checked.';
  if (waits(u).length) return 'the last unit that waited on a lock.';
  return 'the last unit released.';
}

// buildPrintTable lists every unit for the printed page; it is built when
// the page is printed, not at start-up, because it can be 10,000 rows.
let printTableOf = null;

function buildPrintTable() {
  if (printTableOf === A) return;
  printTableOf = A;
  const section = $('all-units');
  section.querySelectorAll('table').forEach((t) => t.remove());
  const table = add(section, el('table', 'units-table'));
  const hr = add(add(table, el('thead')), el('tr'));
  ['Step', 'Unit', 'SQL and parameters', 'Answer', 'Lock waits', 'Times'].forEach((h) => add(hr, el('th', null, h)));
  const tb = add(table, el('tbody'));
  for (const u of M.ordered) {
    const tr = add(tb, el('tr'));
    add(tr, el('td', null, released(u) ? String(u.releaseStep) + (isChoice(u) ? ' choice' : '') + (isPair(u) ? ' pair' : '') : '—'));
    add(tr, el('td', null, refText(u) + (u.prepare ? ' (prepare)' : '')));
    const sql = add(tr, el('td'));
    add(sql, sqlBlock(u));
    const pb = paramsBlock(u);
    if (pb instanceof Node) add(sql, pb);
    add(tr, el('td', null, [u.tags.join(', '), u.rows + ' rows returned', txWords(u.txStatus), u.sqlstate ? 'SQLSTATE ' + u.sqlstate : '', u.error || ''].filter(Boolean).join('; ')));
    const w = add(tr, el('td'));
    const wb = waitsBlock(u);
    if (wb instanceof Node) add(w, wb);
    else w.textContent = wb;
    add(add(tr, el('td')), timesBlock(u));
  }
}

function setUpCopy() {
  const button = $('copy');
  const status = $('copy-status');
  const fallback = (text) => {
    const ta = add(document.body, el('textarea', 'offscreen'));
    ta.value = text;
    ta.select();
    const ok = document.execCommand('copy');
    ta.remove();
    status.textContent = ok ? 'Copied.' : 'Select the command and copy it by hand.';
  };
  button.addEventListener('click', () => {
    const text = $('replay-command').textContent;
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(() => (status.textContent = 'Copied.'), () => fallback(text));
    } else fallback(text);
  });
}

