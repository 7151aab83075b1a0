// validate.js: reads an artifact file the way artifact.Read and
// artifact.Decode do, so that a file the CLI refuses is refused here too:
// size, JSON, schemaVersion, no unknown fields, every field of its Go type
// (CONFIG.schema is derived from the Go types), then artifact.Validate's
// rules. The file is only ever parsed as JSON; nothing in it is executed,
// and the result holds only the schema's fields, with Go's zero values where
// the file has none.
class ArtifactError extends Error {}

function invalid(message) {
  return new ArtifactError(message);
}

function parseArtifact(text) {
  let v;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw invalid('not JSON: ' + e.message);
  }
  if (v !== null && (typeof v !== 'object' || Array.isArray(v))) throw invalid('not JSON: the file holds ' + kindOf(v) + ', not an object');
  const key = v === null ? undefined : lastKey(v, 'schemaversion');
  const version = key === undefined ? undefined : v[key];
  if (version === undefined || version === null) throw invalid('no schemaVersion; this is not an Interleave artifact');
  if (!Number.isInteger(version)) throw invalid('not JSON: schemaVersion is ' + kindOf(version) + ', not an integer');
  if (version !== CONFIG.schemaVersion) throw invalid('schemaVersion ' + version + '; this Interleave reads version ' + CONFIG.schemaVersion);
  PATH.length = 0;
  const a = conform(CONFIG.schema, v);
  checkArtifact(a);
  return a;
}

function kindOf(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return 'a string';
  if (typeof v === 'boolean') return 'a boolean';
  return 'the number ' + v;
}

// lastKey is the key of v that encoding/json decodes into the field whose
// lower-cased name is folded: it matches names without regard to case, and
// the last occurrence wins.
function lastKey(v, folded) {
  let found;
  for (const k of Object.keys(v)) if (k.toLowerCase() === folded) found = k;
  return found;
}

// PATH is where conform is in the document, for messages; it is joined
// only when a message needs it.
const PATH = [];
const own = Object.prototype.hasOwnProperty;

function where() {
  let out = '';
  for (const p of PATH) out += typeof p === 'number' || p[0] === '[' ? '[' + (typeof p === 'number' ? p : p.slice(1)) + ']' : (out ? '.' : '') + p;
  return out || 'the artifact';
}

function zero(s) {
  if (s.nullable) return null;
  switch (s.kind) {
    case 'object': {
      const out = {};
      for (const name of s.order) out[name] = zero(s.fields[name]);
      return out;
    }
    case 'array':
      return [];
    case 'map':
      return Object.create(null);
    case 'string':
      return '';
    case 'bool':
      return false;
    case 'int':
    case 'number':
      return 0;
    case 'time':
      return '0001-01-01T00:00:00Z';
  }
  return null;
}

// fieldOf finds the schema field a JSON key decodes into: its exact name,
// or else one that differs only in case (encoding/json's rule).
function fieldOf(s, k) {
  if (own.call(s.fields, k)) return k;
  if (!s.folded) s.folded = new Map(s.order.map((n) => [n.toLowerCase(), n]));
  return s.folded.get(k.toLowerCase());
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function badType(v, what) {
  return invalid(where() + ' is ' + kindOf(v) + '; want ' + what);
}

// conform checks v against the schema node s and returns a copy that holds
// the schema's fields only. A JSON null leaves Go's zero value, as
// encoding/json does.
function conform(s, v) {
  if (v === null) return zero(s);
  switch (s.kind) {
    case 'object': {
      if (typeof v !== 'object' || Array.isArray(v)) throw badType(v, 'an object');
      const out = {};
      for (const k of Object.keys(v)) {
        const name = fieldOf(s, k);
        if (name === undefined) throw invalid('unknown field "' + k + '" in ' + where());
        PATH.push(name);
        out[name] = conform(s.fields[name], v[k]);
        PATH.pop();
      }
      for (const name of s.order) if (!own.call(out, name)) out[name] = zero(s.fields[name]);
      return out;
    }
    case 'array': {
      if (!Array.isArray(v)) throw badType(v, 'an array');
      const out = new Array(v.length);
      for (let i = 0; i < v.length; i++) {
        PATH.push(i);
        out[i] = conform(s.of, v[i]);
        PATH.pop();
      }
      return out;
    }
    case 'map': {
      if (typeof v !== 'object' || Array.isArray(v)) throw badType(v, 'an object');
      const out = Object.create(null);
      for (const k of Object.keys(v)) {
        PATH.push('[' + JSON.stringify(k));
        out[k] = conform(s.of, v[k]);
        PATH.pop();
      }
      return out;
    }
    case 'string':
      if (typeof v !== 'string') throw badType(v, 'a string');
      return v;
    case 'bool':
      if (typeof v !== 'boolean') throw badType(v, 'true or false');
      return v;
    case 'int': {
      if (!Number.isInteger(v)) throw badType(v, (s.unsigned ? 'an unsigned ' : 'a ') + s.bits + '-bit integer');
      const lo = s.unsigned ? 0 : -(2 ** (s.bits - 1));
      const hi = s.unsigned ? 2 ** s.bits - 1 : 2 ** (s.bits - 1) - 1;
      if (v < lo || v > hi) throw invalid(where() + ' is ' + v + ', out of range for a' + (s.unsigned ? 'n unsigned ' : ' ') + s.bits + '-bit integer');
      return v;
    }
    case 'number':
      if (typeof v !== 'number') throw badType(v, 'a number');
      return v;
    case 'time': {
      if (typeof v !== 'string') throw badType(v, 'an RFC 3339 time');
      const m = RFC3339.exec(v);
      if (!m || +m[2] < 1 || +m[2] > 12 || +m[3] < 1 || +m[3] > 31 || +m[4] > 23 || +m[5] > 59 || +m[6] > 59) {
        throw invalid(where() + ' is ' + JSON.stringify(v.slice(0, 40)) + '; want an RFC 3339 time such as 2026-01-02T03:04:05Z');
      }
      return v;
    }
    case 'any':
      return v;
  }
  throw invalid(where() + ': the page cannot check a field of kind ' + s.kind);
}

const OUTCOME_KINDS = new Set(Object.keys(CONFIG.outcomes));
const ACTOR_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,47}$/;

// checkArtifact applies artifact.Validate's rules, in its order, and
// reports the first problem.
function checkArtifact(a) {
  if (a.scenario.name === '') throw invalid('scenario has no name');
  const n = a.scenario.actors.length;
  if (n < 1 || n > 64) throw invalid('scenario has ' + n + ' actors');
  const actors = new Set();
  for (const name of a.scenario.actors) {
    if (!ACTOR_NAME.test(name) || actors.has(name)) throw invalid('actor name ' + JSON.stringify(name) + ' is not valid or repeated');
    actors.add(name);
  }
  if (!OUTCOME_KINDS.has(a.outcome.kind)) throw invalid('unknown outcome ' + JSON.stringify(a.outcome.kind));
  const units = new Set();
  a.units.forEach((u, i) => {
    if (!actors.has(u.actor)) throw invalid('unit ' + i + ' names unknown actor ' + JSON.stringify(u.actor));
    if (u.conn < 0 || u.unit < 0) throw invalid('unit ' + i + ' has a negative ordinal');
    if (units.has(keyOf(u))) throw invalid('unit ' + refText(u) + ' appears twice');
    units.add(keyOf(u));
  });
  const checkRef = (what, r) => {
    if (!units.has(keyOf(r))) throw invalid(what + ' names unit ' + refText(r) + ', which is not recorded');
  };
  const decisions = a.schedule.decisions;
  decisions.forEach((d, i) => {
    if (d.step !== i) throw invalid('decision ' + i + ' has step ' + d.step);
    if (d.release.length < 1 || d.release.length > 2) throw invalid('decision ' + i + ' releases ' + d.release.length + ' units');
    for (const r of [...d.release, ...d.candidates, ...list(d.blocked)]) checkRef('decision ' + i, r);
  });
  let last = -1;
  a.schedule.choices.forEach((c, i) => {
    if (c.step <= last || c.step >= decisions.length) throw invalid('choice ' + i + ' has step ' + c.step + ' out of order or range');
    last = c.step;
    if (!decisions[c.step].choice) throw invalid('choice ' + i + ' at step ' + c.step + ' is not marked as a choice in the decisions');
    for (const r of c.release) checkRef('choice ' + i, r);
  });
  a.actors.forEach((r, i) => {
    if (!actors.has(r.actor)) throw invalid('actor result ' + i + ' names unknown actor ' + JSON.stringify(r.actor));
  });
  try {
    checkExplanation(a.explanation, actors, decisions.length);
  } catch (e) {
    throw invalid('explanation: ' + e.message);
  }
}

// checkExplanation applies artifact.validateExplanation's rules (all but
// the byte lengths of texts).
function checkExplanation(x, actors, steps) {
  if (!x) return;
  const V = CONFIG.explain;
  const fail = (m) => {
    throw new Error(m);
  };
  const step = (what, n, optional) => {
    if (!((optional && n === 0) || (n >= 0 && n < steps))) fail(what + ' is step ' + n + '; the schedule has ' + steps + ' decisions');
  };
  const actor = (what, name) => {
    if (!actors.has(name)) fail(what + ' names unknown actor ' + JSON.stringify(name));
  };
  const an = x.anomaly;
  if (an.name !== '' && !V.names.includes(an.name)) fail('unknown anomaly ' + JSON.stringify(an.name));
  if (an.adya !== '' && !V.adya.includes(an.adya)) fail('unknown phenomenon ' + JSON.stringify(an.adya));
  if ((an.name === '') !== (an.adya === '') || (an.name === '') !== (x.cycle.length === 0)) {
    fail('the anomaly ' + JSON.stringify(an.name) + ' (' + JSON.stringify(an.adya) + ') does not match a cycle of ' + x.cycle.length + ' dependencies');
  }
  if (x.cycle.length > V.maxCycle) fail('the cycle has ' + x.cycle.length + ' dependencies, over the limit of ' + V.maxCycle);
  x.cycle.forEach((e, i) => {
    const what = 'dependency ' + i;
    if (!V.kinds.includes(e.kind)) fail(what + ' has unknown kind ' + JSON.stringify(e.kind));
    for (const id of [e.from, e.to]) {
      const m = /^([^:]*):([1-9][0-9]*)$/.exec(id);
      if (!m || !actors.has(m[1])) fail(what + ' names transaction ' + JSON.stringify(id) + ', not one of the artifact\u2019s actors (actor:n)');
    }
    step(what, e.fromStep, false);
    step(what, e.toStep, false);
    step(what, e.commitStep, true);
    step(what, e.snapshotStep, true);
  });
  if (x.unknown < 0) fail('unknown commands: ' + x.unknown);
  const p = x.criticalPair;
  if (p) {
    if (p.tried.length > V.maxTrials) fail('the critical pair\u2019s search lists ' + p.tried.length + ' reversals, over the limit of ' + V.maxTrials);
    p.tried.forEach((t, i) => {
      if (!OUTCOME_KINDS.has(t.outcome)) fail('reversal ' + i + ' has unknown outcome ' + JSON.stringify(t.outcome));
      step('reversal ' + i, t.first, false);
      step('reversal ' + i, t.second, false);
    });
    if (p.found) {
      step('the critical pair', p.first, false);
      step('the critical pair', p.second, false);
      actor('the critical pair', p.firstActor);
      actor('the critical pair', p.secondActor);
    }
  }
  if (x.levels.length > V.maxLevels) fail(x.levels.length + ' level runs, over the limit of ' + V.maxLevels);
  for (const l of x.levels) {
    const what = 'the run at ' + JSON.stringify(l.level);
    if (!V.levels.includes(l.level)) fail(what + ': unknown isolation level');
    if (!OUTCOME_KINDS.has(l.outcome)) fail(what + ' has unknown outcome ' + JSON.stringify(l.outcome));
    if (l.errors.length > V.maxLevelErrors) fail(what + ' lists ' + l.errors.length + ' errors, over the limit of ' + V.maxLevelErrors);
    for (const e of l.errors) {
      if (!/^[0-9A-Z]{5}$/.test(e.sqlstate) || e.step < -1) fail(what + ' lists an error with SQLSTATE ' + JSON.stringify(e.sqlstate) + ' at step ' + e.step);
      actor(what, e.actor);
    }
  }
  if (x.fix && !V.fixes.includes(x.fix.class)) fail('unknown fix class ' + JSON.stringify(x.fix.class));
  if (x.notes.length > V.maxNotes) fail(x.notes.length + ' notes, over the limit of ' + V.maxNotes);
}
