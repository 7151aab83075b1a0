// header.js: the outcome, the facts line (counts as the CLI prints them),
// the actors' results, and the side sections: cancel requests, environment
// and fingerprint, limits, the replay command.
function verdictOf(kind) {
  return CONFIG.outcomes[kind] || { verdict: kind, tone: 'warn' };
}

// countsText is the CLI's line about a recorded order, word for word.
function countsText(c) {
  const plus = c.preparations > 0 ? ' (plus ' + c.preparations + ' statement preparations)' : '';
  return 'Recorded release units: ' + c.executing + plus + '; actor switches: ' + c.switches + '.';
}

function facts(a) {
  const f = ['mode ' + a.mode + ', exit code ' + a.outcome.exitCode, countsText(M.counts)];
  const choices = a.schedule.choices.length;
  f.push(plural(M.decisions.length, 'scheduler step') + ' (the timeline\u2019s columns), ' + plural(choices, 'choice'));
  const waited = M.units.filter((u) => waits(u).length).length;
  f.push(plural(waited, 'unit') + ' waited on a lock');
  const s = a.search;
  if (s) f.push('search ' + s.strategy + ': attempt ' + (s.attempt + 1) + ' of ' + s.attempted + ' attempted, ' + plural(s.violations, 'violation') + '; ' + s.stopReason);
  const r = a.replay;
  if (r) f.push((r.guided ? 'guided' : 'exact') + ' replay of ' + r.source + ': followed ' + r.followed + ' of ' + r.of + ' decisions');
  const m = a.minimize;
  if (m) f.push('minimized ' + m.source + ': ' + m.choicesBefore + ' choices reduced to ' + m.choicesAfter + ' in ' + plural(m.attempts, 'attempt') + (m.locallyMinimal ? ' (locally minimal)' : ''));
  if (!a.createdAt.startsWith('0001-')) f.push('recorded ' + new Date(a.createdAt).toISOString().replace(/\.\d+Z$/, 'Z'));
  if (a.outcome.failureFingerprint) f.push('failure ' + a.outcome.failureFingerprint);
  return f;
}

function renderHeader(a) {
  const v = verdictOf(a.outcome.kind);
  const h = $('outcome');
  h.className = 'outcome tone-' + v.tone;
  h.dataset.outcome = a.outcome.kind;
  $('verdict').textContent = v.verdict;
  $('scenario-name').textContent = a.scenario.name;
  document.title = v.verdict + ': ' + a.scenario.name + ' (Interleave report)';
  const msg = $('outcome-message');
  msg.textContent = a.outcome.message;
  msg.hidden = a.outcome.message === '';
  const fl = $('facts');
  fl.replaceChildren();
  for (const f of facts(a)) add(fl, el('li', null, f));
  const rl = $('results');
  rl.replaceChildren();
  for (const r of a.actors) {
    const li = add(rl, el('li'));
    add(li, el('span', 'actor-name', r.actor));
    add(li, document.createTextNode(' '));
    if (r.error) add(li, el('span', 'result-error', 'returned an error: ' + r.error));
    else if (r.value === null || r.value === undefined) add(li, el('span', 'muted', 'returned no value'));
    else {
      add(li, document.createTextNode('returned '));
      add(li, el('code', null, JSON.stringify(r.value)));
    }
  }
  rl.hidden = !a.actors.length;
}

// kvList fills a definition list with the pairs whose value is not empty.
function kvList(parent, cls, pairs) {
  const shown = pairs.filter((p) => p[1] !== '' && p[1] !== undefined && p[1] !== null);
  if (!shown.length) return null;
  const dl = add(parent, el('dl', cls));
  for (const [k, v] of shown) {
    add(dl, el('dt', null, k));
    add(dl, el('dd', null, v));
  }
  return dl;
}

function sortedPairs(obj) {
  return Object.keys(obj).sort().map((k) => [k, String(obj[k])]);
}

function renderCancels(a) {
  const box = $('cancels-body');
  box.replaceChildren();
  if (!a.cancels.length) {
    add(box, el('p', 'none', 'No cancel requests were sent.'));
    return;
  }
  const table = add(box, el('table', 'kv-table'));
  const hr = add(add(table, el('thead')), el('tr'));
  ['Actor', 'Backend PID', 'Forwarded', 'At (µs)'].forEach((h) => add(hr, el('th', null, h)));
  const tb = add(table, el('tbody'));
  for (const c of a.cancels) {
    const tr = add(tb, el('tr'));
    [c.actor, c.pid, c.forwarded ? 'yes' : 'no', c.atUs].forEach((v) => add(tr, el('td', null, v)));
  }
}

function renderEnvironment(a) {
  const box = $('environment-body');
  box.replaceChildren();
  const e = a.environment;
  kvList(box, 'kv', [
    ['PostgreSQL', e.postgresVersion], ['Server', e.server], ['Go', e.goVersion], ['Interleave', e.interleaveVersion],
    ['Written by', (a.tool.name + ' ' + a.tool.version).trim()], ['Platform', (e.os + '/' + e.arch).replace(/^\/+|\/+$/g, '')],
  ]);
  const f = a.fingerprint;
  if (f) {
    const size = f.sources.reduce((n, s) => n + s.size, 0);
    const fp = [
      ['Server version', f.serverVersion], ['Go', f.goVersion], ['Interleave', f.interleaveVersion],
      ['Sources', f.sources.length + ' files (' + thousands(size) + ' bytes)'], ['Modules', f.modules.map((m) => m.path).join(', ')],
      ['Settings', Object.keys(f.settings).length + ' recorded'], ['Connections', String(f.connections.length)],
      ['Upstream TLS', String(f.upstreamTls)], ['Profiles', f.profiles],
    ];
    if (f.database) fp.push(['Database hash', f.database.hash]);
    add(box, el('h3', null, 'Fingerprint checked by exact replay'));
    kvList(box, 'kv', fp);
    if (f.database && Object.keys(f.database.objects).length) {
      add(box, el('h3', null, 'Database objects'));
      kvList(box, 'kv', sortedPairs(f.database.objects));
    }
    if (f.database && Object.keys(f.database.parts).length) {
      add(box, el('h3', null, 'Database fingerprint parts'));
      kvList(box, 'kv mono', sortedPairs(f.database.parts));
    }
    const settings = sortedPairs(f.settings);
    if (settings.length) {
      const d = add(box, el('details', 'settings'));
      add(d, el('summary', null, 'Server settings (' + settings.length + ')'));
      kvList(d, 'kv mono', settings);
    }
  }
  const l = a.limits;
  const c = a.capture;
  const cl = a.cleanup;
  const limits = [
    ['Attempt timeout', durationText(l.attemptTimeoutMs)], ['Max attempts', l.maxAttempts ? String(l.maxAttempts) : ''],
    ['Max time', durationText(l.maxTimeMs)], ['Max depth', l.maxDepth ? String(l.maxDepth) : ''], ['Connections', l.connections],
    ['Protocol profile', l.protocolProfile], ['Overlap', l.overlap],
    ['Wire capture', c ? thousands(c.size) + ' bytes (' + c.encoding + '), sha256 ' + c.sha256 : 'not kept'],
    ['Cleanup', 'databases dropped: ' + cl.databasesDropped + '; server stopped: ' + cl.serverStopped + (cl.error ? '; ' + cl.error : '')],
  ];
  add(box, el('h3', null, 'Limits'));
  kvList(box, 'kv', limits);
}

// renderReplay shows the command that replays the artifact. For a file
// opened in the page only its name is known, so the paths are a guess.
function renderReplay(a, source) {
  let cmd = CONFIG.replayCommand;
  let note = CONFIG.replayGeneric ? ' (both guessed from the scenario name: put the real paths in their place)' : '';
  if (source.kind !== 'embedded') {
    cmd = 'interleave replay ' + shellQuote(a.scenario.program || './' + a.scenario.name) + ' ' + shellQuote(source.name);
    note = ' (the artifact\u2019s path is a guess from the opened file\u2019s name: put the real path in its place)';
  }
  $('replay-command').textContent = cmd;
  $('replay-note').textContent = 'Run it from the module root: the first argument is the scenario program\u2019s package directory, the second this artifact\u2019s file' + note + '.';
  $('copy-status').textContent = '';
}
