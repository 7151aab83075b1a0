// model.js: the artifact being shown (A) and what the views derive from it
// (M), rebuilt whenever another artifact is opened.
let A = null;
let M = null;

function buildModel(a) {
  const units = a.units;
  const decisions = a.schedule.decisions;
  const actors = a.scenario.actors;
  const m = {
    units, decisions, actors,
    unitByKey: new Map(units.map((u) => [keyOf(u), u])),
    laneOf: new Map(actors.map((x, i) => [x, i])),
    selected: null,
  };
  M = m;
  const hasUnreleased = units.some((u) => !released(u));
  m.nCols = decisions.length + (hasUnreleased ? 1 : 0);
  // columns[c] are the units shown in column c, in lane order.
  m.columns = Array.from({ length: m.nCols }, () => []);
  const ordered = units.slice().sort((x, y) => columnOf(x) - columnOf(y) || m.laneOf.get(x.actor) - m.laneOf.get(y.actor) || x.conn - y.conn || x.unit - y.unit);
  for (const u of ordered) m.columns[columnOf(u)].push(u);
  m.ordered = ordered;
  // releasedAt[s] is when step s released its units, for the wait bars.
  m.releasedAt = decisions.map(() => Infinity);
  for (const u of units) if (released(u) && u.releasedUs) m.releasedAt[u.releaseStep] = Math.min(m.releasedAt[u.releaseStep], u.releasedUs);
  m.counts = releaseCounts(a);
  m.failing = failingUnit(a);
  return m;
}

function released(u) {
  return u.releaseStep >= 0 && u.releaseStep < M.decisions.length;
}

function columnOf(u) {
  return released(u) ? u.releaseStep : M.decisions.length;
}

function decisionOf(u) {
  return released(u) ? M.decisions[u.releaseStep] : null;
}

function isPair(u) {
  const d = decisionOf(u);
  return !!u.pair || (d !== null && d.release.length > 1);
}

function isChoice(u) {
  const d = decisionOf(u);
  return d !== null && d.choice;
}

function hasError(u) {
  return !!(u.sqlstate || u.error);
}

function waits(u) {
  return u.lockWaits;
}

function sqlText(u) {
  return u.sql.join(';\n');
}

// blockers are the actors (or backend PIDs) a unit waited on.
function blockers(u) {
  const seen = [];
  for (const w of waits(u)) {
    const names = w.blockingActors.length ? w.blockingActors : w.blockingPids.map((p) => 'PID ' + p);
    for (const n of names) if (!seen.includes(String(n))) seen.push(String(n));
  }
  return seen.length ? seen : ['another session'];
}

function actorClass(actor) {
  const i = M.laneOf.has(actor) ? M.laneOf.get(actor) : 0;
  return 'actor-c' + (i % 8);
}

// completionColumn is the last step released before u completed: how long a
// unit that waited on a lock stayed in PostgreSQL. Release times grow with
// the step, so a binary search finds it.
function completionColumn(u) {
  if (!u.completed || !u.completedUs) return M.decisions.length - 1;
  let lo = u.releaseStep;
  let hi = M.decisions.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (M.releasedAt[mid] <= u.completedUs) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// releaseCounts is artifact.(*Artifact).ReleaseCounts: the CLI prints the
// same three numbers, and the browser test holds the two to each other.
function releaseCounts(a) {
  const prepare = new Set(a.units.filter((u) => u.prepare).map(keyOf));
  const c = { executing: 0, preparations: 0, switches: 0 };
  let last = '';
  for (const d of a.schedule.decisions) {
    for (const r of d.release) {
      if (prepare.has(keyOf(r))) {
        c.preparations++;
        continue;
      }
      c.executing++;
      if (last !== '' && r.actor !== last) c.switches++;
      last = r.actor;
    }
  }
  return c;
}

// changedRows is the number of rows a unit's command tags say it inserted,
// updated, deleted, merged or copied in.
function changedRows(u) {
  let n = 0;
  for (const t of u.tags) {
    const m = /^(?:INSERT \d+|UPDATE|DELETE|MERGE|COPY) (\d+)$/.exec(t);
    if (m) n += Number(m[1]);
  }
  return n;
}

// failingUnit is the step the page opens on and marks: where the failure
// shows in the recorded order. The artifact does not name it, so the page
// infers it: for an actor error the first unit PostgreSQL answered with an
// error; otherwise the last unit to complete that changed rows (in a lost
// update, the write that overwrote the other), then the first error, the
// last unit that waited on a lock, the last executing unit released. A pass
// has none.
function failingUnit(a) {
  if (a.outcome.kind === 'pass') return null;
  const run = M.ordered.filter((u) => released(u) && !u.prepare);
  const firstError = run.find(hasError) || null;
  if (a.outcome.kind === 'actor-error' && firstError) return firstError;
  const finish = (u) => (u.completed && u.completedUs ? u.completedUs : -1);
  const last = (us) => us.reduce((best, u) => (best === null || finish(u) > finish(best) || (finish(u) === finish(best) && u.releaseStep >= best.releaseStep) ? u : best), null);
  return last(run.filter((u) => u.completed && changedRows(u) > 0)) || firstError || last(run.filter((u) => waits(u).length)) || run[run.length - 1] || M.ordered[0] || null;
}
