// timeline.js: one lane per actor, one column per scheduler step, shown a
// page at a time: a page holds at most PAGE_UNITS unit boxes, so that a
// recording of 10,000 units opens, filters and moves as fast as a short one.
// Filters by SQL text and by actor keep only the steps with a matching unit.
const timeline = $('timeline');
const PAGE_UNITS = 60;
// cols: the shown columns {col, units}; pageStart: the index in cols where
// each page starts; boxes: the current page's {u, box, row} in release order.
const T = { cols: [], colIndex: new Map(), pageStart: [0], page: 0, boxes: [], lanes: [], shown: 0, printing: false };

function place(e, row, col) {
  e.style.gridRow = row;
  e.style.gridColumn = col;
  return e;
}

function filterState() {
  const off = new Set();
  if (T.printing) return { q: '', off, active: false };
  document.querySelectorAll('#actor-filter input').forEach((cb) => {
    if (!cb.checked) off.add(cb.value);
  });
  const q = $('search').value.trim().toLowerCase();
  return { q, off, active: q !== '' || off.size > 0 };
}

function lowerSQL(u) {
  let s = M.lower.get(u);
  if (s === undefined) M.lower.set(u, (s = sqlText(u).toLowerCase()));
  return s;
}

// layout decides which columns are shown and how they fall into pages.
function layout() {
  const f = filterState();
  if (!M.lower) M.lower = new Map();
  T.cols = [];
  T.colIndex = new Map();
  T.shown = 0;
  for (let c = 0; c < M.nCols; c++) {
    const units = f.active ? M.columns[c].filter((u) => !f.off.has(u.actor) && (f.q === '' || lowerSQL(u).includes(f.q))) : M.columns[c];
    if (!units.length) continue;
    T.colIndex.set(c, T.cols.length);
    T.cols.push({ col: c, units });
    T.shown += units.length;
  }
  T.pageStart = [0];
  let n = 0;
  T.cols.forEach((c, i) => {
    if (n > 0 && n + c.units.length > PAGE_UNITS) {
      T.pageStart.push(i);
      n = 0;
    }
    n += c.units.length;
  });
  T.lanes = M.actors.filter((a) => !f.off.has(a));
}

function pageCount() {
  return T.pageStart.length;
}

function pageRange(p) {
  return [T.pageStart[p], p + 1 < T.pageStart.length ? T.pageStart[p + 1] : T.cols.length];
}

// pageOf is the page that shows u, or -1 when the filters hide it.
function pageOf(u) {
  const i = T.colIndex.get(columnOf(u));
  if (i === undefined || !T.cols[i].units.includes(u)) return -1;
  let lo = 0;
  let hi = T.pageStart.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (T.pageStart[mid] <= i) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function stepHead(d, s) {
  const h = el('div', 'step-head');
  add(h, el('span', 'step-no', 'step ' + s));
  if (d.choice) {
    h.classList.add('is-choice');
    badge(h, 'badge-choice', 'choice');
  }
  if (d.release.length > 1) badge(h, 'badge-pair', 'pair');
  if (d.fault) badge(h, 'badge-fault', 'fault ' + d.fault);
  if (list(d.blocked).length) {
    const b = badge(h, 'badge-blocked', d.blocked.length + ' blocked');
    b.title = 'Waiting on locks at this decision: ' + d.blocked.map(refText).join(', ');
  }
  if (M.failing && released(M.failing) && M.failing.releaseStep === s) h.classList.add('is-failing');
  return h;
}

function makeBox(u) {
  const b = el('button', 'unit-box ' + actorClass(u.actor));
  b.type = 'button';
  b.dataset.actor = u.actor;
  b.dataset.conn = String(u.conn);
  b.dataset.unit = String(u.unit);
  b.dataset.step = String(u.releaseStep);
  const on = u === M.selected;
  b.classList.toggle('selected', on);
  b.setAttribute('aria-pressed', on ? 'true' : 'false');
  const head = add(b, el('span', 'unit-head'));
  add(head, el('span', 'unit-id', u.actor + ' #' + u.conn + '.' + u.unit));
  const tag = u.tags.join(', ') || (u.copy ? 'COPY ' + u.copy : '');
  if (tag) add(head, el('span', 'unit-tag', tag));
  const sql = sqlText(u);
  add(b, el('span', 'unit-sql', sql || '(no SQL: ' + messageWords(u.messages) + ')'));
  const marks = el('span', 'unit-marks');
  if (u === M.failing) {
    b.classList.add('failing');
    failingMark(marks);
  }
  if (u.prepare) {
    b.classList.add('prepare');
    badge(marks, 'badge-prepare', 'prepare');
  }
  if (isPair(u)) {
    b.classList.add('pair');
    badge(marks, 'badge-pair', 'pair');
  }
  if (isChoice(u)) badge(marks, 'badge-choice', 'choice');
  if (u.fault) {
    b.classList.add('faulted');
    badge(marks, 'badge-fault', 'fault ' + u.fault);
  }
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
  if (!released(u)) badge(marks, 'badge-muted badge-unreleased', 'never released');
  else if (!u.completed) badge(marks, 'badge-muted badge-incomplete', 'not completed');
  if (marks.childNodes.length) add(b, marks);
  b.setAttribute('aria-label', [u.actor, 'unit ' + u.conn + '.' + u.unit, released(u) ? 'step ' + u.releaseStep : 'not released', sql, marks.textContent].join('; '));
  b.addEventListener('click', () => select(u));
  return b;
}

// waitBar draws how long u waited, within the page's columns.
function waitBar(grid, u, row, i, to) {
  const end = completionColumn(u);
  let j = i;
  while (j + 1 < to && T.cols[j + 1].col <= end) j++;
  const more = j + 1 === to && to < T.cols.length && T.cols[to].col <= end;
  const text = 'waiting for ' + blockers(u).join(', ') + (u.completed ? '' : ' (never completed)') + (more ? ' \u2192 next page' : '');
  const from = T.pageStart[T.page];
  place(add(grid, el('div', 'wait-bar', text)), String(row + 1), i - from + 2 + ' / ' + (j - from + 3));
}

function renderPage() {
  timeline.replaceChildren();
  T.boxes = [];
  if (!T.cols.length) {
    add(timeline, el('p', 'none empty', M.units.length ? 'No unit matches the filters.' : 'This attempt recorded no release units.'));
    return;
  }
  const [from, to] = pageRange(T.page);
  const n = to - from;
  const grid = add(timeline, el('div', 'tl-grid'));
  // Columns share the width; below their minimum the timeline scrolls.
  grid.style.gridTemplateColumns = 'var(--lane-w) repeat(' + n + ', minmax(var(--col-w), 1fr))';
  grid.style.minWidth = 'calc(var(--lane-w) + ' + n + ' * var(--col-w))';
  place(add(grid, el('div', 'tl-corner', 'actor \u2193  step \u2192')), '1', '1');
  for (let i = from; i < to; i++) {
    const c = T.cols[i].col;
    place(add(grid, c < M.decisions.length ? stepHead(M.decisions[c], c) : el('div', 'step-head', 'not released')), '1', String(i - from + 2));
  }
  const rowOf = new Map();
  T.lanes.forEach((a, k) => {
    rowOf.set(a, 2 + 2 * k);
    place(add(grid, el('div', 'lane-bg ' + (k % 2 ? 'odd' : 'even'))), 2 + 2 * k + ' / span 2', '1 / -1');
    place(add(grid, el('div', 'lane-label ' + actorClass(a), a)), 2 + 2 * k + ' / span 2', '1');
  });
  for (let i = from; i < to; i++) {
    const cells = new Map();
    for (const u of T.cols[i].units) {
      const row = rowOf.get(u.actor);
      if (!cells.has(row)) cells.set(row, place(add(grid, el('div', 'tl-cell')), String(row), String(i - from + 2)));
      T.boxes.push({ u, box: add(cells.get(row), makeBox(u)), row });
      if (waits(u).length && released(u)) waitBar(grid, u, row, i, to);
    }
  }
  drawCycle(grid);
}

function showPage(p) {
  T.page = Math.max(0, Math.min(p, pageCount() - 1));
  renderPage();
  updatePager();
  scrollHint();
}

function updatePager() {
  const pages = pageCount();
  $('pager').hidden = pages <= 1;
  const total = M.decisions.length;
  let text = thousands(total) + ' steps';
  if (T.cols.length) {
    const [from, to] = pageRange(T.page);
    const first = T.cols[from].col;
    const last = T.cols[to - 1].col;
    const name = (c) => (c < total ? thousands(c) : 'not released');
    text = 'Page ' + thousands(T.page + 1) + ' of ' + thousands(pages) + ': steps ' + name(first) + (last !== first ? '\u2013' + name(last) : '') + ' of ' + thousands(total) + (T.shown < M.units.length ? ', matching units only' : '');
  }
  $('page-status').textContent = text;
  $('page-first').disabled = $('page-prev').disabled = T.page === 0;
  $('page-next').disabled = $('page-last').disabled = T.page >= pages - 1;
  $('page-failing').hidden = !M.failing;
  $('page-step').max = String(Math.max(total - 1, 0));
}

function buildFilters() {
  const fs = $('actor-filter');
  fs.querySelectorAll('label').forEach((l) => l.remove());
  M.actors.forEach((a) => {
    const label = add(fs, el('label', 'actor-toggle ' + actorClass(a)));
    const cb = add(label, el('input'));
    cb.type = 'checkbox';
    cb.checked = true;
    cb.value = a;
    cb.dataset.actor = a;
    cb.addEventListener('change', applyFilters);
    add(label, el('span', null, a));
  });
  $('search').value = '';
}

function applyFilters() {
  const keep = M.selected;
  layout();
  const p = keep ? pageOf(keep) : -1;
  showPage(p < 0 ? 0 : p);
  $('filter-count').textContent = T.shown === M.units.length ? plural(M.units.length, 'unit') : thousands(T.shown) + ' of ' + plural(M.units.length, 'unit') + ' shown';
}

// scrollHint says so when the page of the timeline is wider than its box.
function scrollHint() {
  const hint = $('scroll-hint');
  hint.hidden = timeline.scrollWidth <= timeline.clientWidth + 1;
  hint.textContent = 'Scroll the timeline sideways to see all the steps on this page.';
}

function focusBox(box) {
  box.focus({ preventScroll: true });
  box.scrollIntoView({ block: 'nearest', inline: 'nearest' });
}

// reveal brings u's page up and scrolls u into the middle of the timeline's
// width (the lane labels stay in place over the left edge).
function reveal(u, focus) {
  if (!T.boxes.some((x) => x.u === u)) {
    const p = pageOf(u);
    if (p < 0) return null;
    showPage(p);
  }
  const x = T.boxes.find((y) => y.u === u);
  const label = timeline.querySelector('.lane-label');
  const left = label ? label.getBoundingClientRect().right : timeline.getBoundingClientRect().left;
  const right = timeline.getBoundingClientRect().right;
  const b = x.box.getBoundingClientRect();
  if (b.left < left || b.right > right) timeline.scrollLeft += b.left + b.width / 2 - (left + right) / 2;
  const r = x.box.getBoundingClientRect();
  if (r.top < 0 || r.bottom > window.innerHeight) x.box.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  if (focus) focusBox(x.box);
  return x.box;
}

// moveFocus answers keys on a unit: left and right step through the release
// order (onto the next or previous page at its ends), up and down change
// lanes at the nearest step, Home and End jump to the first and last unit,
// PageUp and PageDown turn the page.
function moveFocus(e) {
  const i = T.boxes.findIndex((x) => x.box === e.target);
  if (i < 0) return;
  const cur = T.boxes[i];
  const last = pageCount() - 1;
  let next = null;
  let turn = null;
  if (e.key === 'ArrowRight') {
    if (i + 1 < T.boxes.length) next = T.boxes[i + 1];
    else if (T.page < last) turn = [T.page + 1, 'first'];
  } else if (e.key === 'ArrowLeft') {
    if (i > 0) next = T.boxes[i - 1];
    else if (T.page > 0) turn = [T.page - 1, 'last'];
  } else if (e.key === 'Home') turn = [0, 'first'];
  else if (e.key === 'End') turn = [last, 'last'];
  else if (e.key === 'PageDown') turn = [Math.min(T.page + 1, last), 'first'];
  else if (e.key === 'PageUp') turn = [Math.max(T.page - 1, 0), 'first'];
  else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
    const dir = e.key === 'ArrowDown' ? 1 : -1;
    const ci = (x) => T.boxes.indexOf(x);
    const other = T.boxes.filter((x) => (x.row - cur.row) * dir > 0);
    const col = (x) => T.colIndex.get(columnOf(x.u));
    other.sort((x, y) => Math.abs(x.row - cur.row) - Math.abs(y.row - cur.row) || Math.abs(col(x) - col(cur)) - Math.abs(col(y) - col(cur)) || ci(x) - ci(y));
    next = other[0];
  } else return;
  e.preventDefault();
  if (turn) {
    if (turn[0] !== T.page) showPage(turn[0]);
    next = turn[1] === 'last' ? T.boxes[T.boxes.length - 1] : T.boxes[0];
  }
  if (next) focusBox(next.box);
}

// goToStep shows the page with step s (or the next shown step after it).
function goToStep(s) {
  const i = T.cols.findIndex((c) => c.col >= s);
  if (i < 0) return;
  const u = T.cols[i].units[0];
  reveal(u, true);
}

function setUpTimelineControls() {
  timeline.addEventListener('keydown', moveFocus);
  $('search').addEventListener('input', applyFilters);
  window.addEventListener('resize', scrollHint);
  const turn = (p) => () => {
    showPage(p());
    if (T.boxes.length) focusBox(T.boxes[0].box);
  };
  $('page-first').addEventListener('click', turn(() => 0));
  $('page-prev').addEventListener('click', turn(() => T.page - 1));
  $('page-next').addEventListener('click', turn(() => T.page + 1));
  $('page-last').addEventListener('click', turn(() => pageCount() - 1));
  $('page-step').addEventListener('change', (e) => {
    const s = Number(e.target.value);
    if (Number.isInteger(s)) goToStep(s);
  });
  $('page-failing').addEventListener('click', () => {
    if (!M.failing) return;
    if (pageOf(M.failing) < 0) {
      // The filters hide it: show everything again rather than nothing.
      $('search').value = '';
      document.querySelectorAll('#actor-filter input').forEach((cb) => (cb.checked = true));
      applyFilters();
    }
    select(M.failing);
    reveal(M.failing, true);
  });
}

// setPrinting shows every unit of the current page, whatever the filters,
// for the printed page (and builds the table of all units once).
function setPrinting(on) {
  if (T.printing === on || !M) return;
  T.printing = on;
  if (on) buildPrintTable();
  const keep = M.selected || (T.boxes[0] && T.boxes[0].u);
  layout();
  const p = keep ? pageOf(keep) : -1;
  showPage(p < 0 ? 0 : p);
}
