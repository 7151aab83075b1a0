// timeline.js: one lane per actor, one column per decision step; filters
// by SQL text and by actor; keyboard movement between units.
const timeline = document.getElementById('timeline');
const boxes = []; // {u, box, lane, col} in release order
const lanes = []; // per actor: the elements to hide when it is filtered out
const bars = []; // {u, bar}
const hasUnreleased = units.some((u) => !released(u));
const nCols = decisions.length + (hasUnreleased ? 1 : 0);

function columnOf(u) {
  return released(u) ? u.releaseStep : decisions.length;
}

function place(e, row, col) {
  e.style.gridRow = row;
  e.style.gridColumn = col;
  return e;
}

// completionColumn is the last step released before u completed: how long a
// unit that waited on a lock stayed in PostgreSQL.
function completionColumn(u) {
  if (!u.completed || !u.completedUs) return decisions.length - 1;
  let c = u.releaseStep;
  for (const v of units) {
    if (released(v) && v.releaseStep > c && v.releasedUs && v.releasedUs <= u.completedUs) c = v.releaseStep;
  }
  return c;
}

function stepHead(d, s) {
  const h = el('div', 'step-head');
  add(h, el('span', 'step-no', 'step ' + s));
  if (d.choice) {
    h.classList.add('is-choice');
    badge(h, 'badge-choice', 'choice');
  }
  if (list(d.release).length > 1) badge(h, 'badge-pair', 'pair');
  if (list(d.blocked).length) {
    const b = badge(h, 'badge-blocked', list(d.blocked).length + ' blocked');
    b.title = 'Waiting on locks at this decision: ' + list(d.blocked).map(refText).join(', ');
  }
  return h;
}

function makeBox(u) {
  const b = el('button', 'unit-box ' + actorClass(u.actor));
  b.type = 'button';
  b.dataset.actor = u.actor;
  b.dataset.conn = String(u.conn);
  b.dataset.unit = String(u.unit);
  b.dataset.step = String(u.releaseStep);
  b.setAttribute('aria-pressed', 'false');
  const head = add(b, el('span', 'unit-head'));
  add(head, el('span', 'unit-id', u.actor + ' #' + u.conn + '.' + u.unit));
  const tags = list(u.tags);
  if (tags.length) add(head, el('span', 'unit-tag', tags.join(', ')));
  else if (u.messages) add(head, el('span', 'unit-tag', u.messages));
  const sql = sqlText(u);
  add(b, el('span', 'unit-sql', sql || '(' + (u.protocol || 'no') + ' unit ' + (u.messages || '') + ', no SQL)'));
  const marks = el('span', 'unit-marks');
  if (u.prepare) {
    b.classList.add('prepare');
    badge(marks, 'badge-prepare', 'prepare');
  }
  if (isPair(u)) {
    b.classList.add('pair');
    badge(marks, 'badge-pair', 'pair');
  }
  if (isChoice(u)) badge(marks, 'badge-choice', 'choice');
  if (waits(u).length) {
    const who = blockers(u);
    b.classList.add('waited');
    b.dataset.waitedOn = who.join(' ');
    badge(marks, 'badge-wait lock-wait', 'waited on ' + who.join(', '));
  }
  if (hasError(u)) {
    b.classList.add('error');
    badge(marks, 'badge-error', u.sqlstate ? 'SQLSTATE ' + u.sqlstate : 'error');
  }
  if (!released(u)) badge(marks, 'badge-muted', 'never released');
  else if (!u.completed) badge(marks, 'badge-muted', 'not completed');
  if (marks.childNodes.length) add(b, marks);
  b.setAttribute('aria-label', [u.actor, 'unit ' + u.conn + '.' + u.unit, released(u) ? 'step ' + u.releaseStep : 'not released', sql, marks.textContent].join('; '));
  b.addEventListener('click', () => select(u));
  return b;
}

function buildTimeline() {
  const grid = add(timeline, el('div', 'tl-grid'));
  // Columns share the width; below their minimum the timeline scrolls.
  grid.style.gridTemplateColumns = 'var(--lane-w) repeat(' + Math.max(nCols, 1) + ', minmax(var(--col-w), 1fr))';
  grid.style.minWidth = 'calc(var(--lane-w) + ' + Math.max(nCols, 1) + ' * var(--col-w))';
  place(add(grid, el('div', 'tl-corner', 'actor \u2193  step \u2192')), '1', '1');
  decisions.forEach((d, s) => place(add(grid, stepHead(d, s)), '1', String(s + 2)));
  if (hasUnreleased) place(add(grid, el('div', 'step-head', 'not released')), '1', String(decisions.length + 2));
  actors.forEach((a, i) => {
    const row = 2 + 2 * i + ' / span 2';
    const bg = place(add(grid, el('div', 'lane-bg ' + (i % 2 ? 'odd' : 'even'))), row, '1 / -1');
    const label = place(add(grid, el('div', 'lane-label ' + actorClass(a), a)), row, '1');
    lanes.push({ actor: a, els: [bg, label] });
  });
  const sorted = units.slice().sort((x, y) => columnOf(x) - columnOf(y) || (laneOf.get(x.actor) - laneOf.get(y.actor)) || x.conn - y.conn || x.unit - y.unit);
  const cells = new Map();
  for (const u of sorted) {
    const lane = laneOf.get(u.actor);
    const col = columnOf(u);
    const k = lane + ':' + col;
    if (!cells.has(k)) cells.set(k, place(add(grid, el('div', 'tl-cell')), String(2 + 2 * lane), String(col + 2)));
    const box = add(cells.get(k), makeBox(u));
    boxes.push({ u, box, lane, col });
    if (waits(u).length && released(u)) {
      const end = completionColumn(u);
      const text = 'waiting for ' + blockers(u).join(', ') + (u.completed ? '' : ' (never completed)');
      const bar = el('div', 'wait-bar', text);
      if (end > u.releaseStep) place(add(grid, bar), String(3 + 2 * lane), u.releaseStep + 2 + ' / ' + (end + 3));
      else place(add(grid, bar), String(3 + 2 * lane), String(u.releaseStep + 2));
      bars.push({ u, bar });
    }
  }
  if (!units.length) add(timeline, el('p', 'none', 'This attempt recorded no release units.'));
}

function buildFilters() {
  const fs = document.getElementById('actor-filter');
  actors.forEach((a) => {
    const label = add(fs, el('label', 'actor-toggle ' + actorClass(a)));
    const cb = add(label, el('input'));
    cb.type = 'checkbox';
    cb.checked = true;
    cb.value = a;
    cb.dataset.actor = a;
    cb.addEventListener('change', applyFilters);
    add(label, el('span', null, a));
  });
  document.getElementById('search').addEventListener('input', applyFilters);
}

function applyFilters() {
  const q = document.getElementById('search').value.trim().toLowerCase();
  const off = new Set();
  document.querySelectorAll('#actor-filter input').forEach((cb) => {
    if (!cb.checked) off.add(cb.value);
  });
  let shown = 0;
  const visible = new Set();
  for (const x of boxes) {
    const ok = !off.has(x.u.actor) && (q === '' || sqlText(x.u).toLowerCase().includes(q));
    x.box.hidden = !ok;
    if (ok) {
      shown++;
      visible.add(x.u);
    }
  }
  for (const l of lanes) l.els.forEach((e) => (e.hidden = off.has(l.actor)));
  for (const b of bars) b.bar.hidden = !visible.has(b.u);
  document.getElementById('filter-count').textContent = shown === boxes.length ? boxes.length + ' units' : shown + ' of ' + boxes.length + ' units shown';
  scrollHint();
}

// scrollHint says so when the timeline is wider than its box.
function scrollHint() {
  const hint = document.getElementById('scroll-hint');
  hint.hidden = timeline.scrollWidth <= timeline.clientWidth + 1;
  hint.textContent = decisions.length + ' steps: scroll the timeline sideways to see them all.';
}

window.addEventListener('resize', scrollHint);

function visibleBoxes() {
  return boxes.filter((x) => !x.box.hidden);
}

// moveFocus answers arrow keys: left and right step through the release
// order, up and down change lanes at the nearest step, Home and End jump.
function moveFocus(e) {
  const vis = visibleBoxes();
  const i = vis.findIndex((x) => x.box === e.target);
  if (i < 0) return;
  const cur = vis[i];
  let next = null;
  if (e.key === 'ArrowRight') next = vis[i + 1];
  else if (e.key === 'ArrowLeft') next = vis[i - 1];
  else if (e.key === 'Home') next = vis[0];
  else if (e.key === 'End') next = vis[vis.length - 1];
  else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
    const dir = e.key === 'ArrowDown' ? 1 : -1;
    const other = vis.filter((x) => (x.lane - cur.lane) * dir > 0);
    other.sort((x, y) => Math.abs(x.lane - cur.lane) - Math.abs(y.lane - cur.lane) || Math.abs(x.col - cur.col) - Math.abs(y.col - cur.col) || x.col - y.col);
    next = other[0];
  } else return;
  e.preventDefault();
  if (next) {
    next.box.focus();
    next.box.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }
}

timeline.addEventListener('keydown', moveFocus);
