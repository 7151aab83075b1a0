// explain.js: what went wrong, when the shown artifact says: the anomaly
// (which a search names for every failure it saves, in the artifact's
// explanation), the critical pair and the fix class (once `interleave
// explain` has run them) in a section, and the dependency cycle drawn over
// the lanes of the timeline, one arrow per dependency from the command that
// came first to the one that depends on it. A page rendered by `explain
// --report` shows the richer explanation it was given for its own artifact;
// another artifact opened in the page shows its own.
function explanation() {
  if (CONFIG.explanation && SHOWN && SHOWN.kind === 'embedded') return CONFIG.explanation;
  return (A && A.explanation) || null;
}

function renderExplanation() {
  const X = explanation();
  const sec = $('explain-section');
  const body = $('explain-body');
  body.replaceChildren();
  sec.hidden = !X;
  if (!X) return;
  const an = X.anomaly || {};
  const head = add(body, el('p', 'explain-name'));
  if (an.name) {
    add(head, el('strong', null, an.name));
    add(head, el('span', 'badge badge-adya', 'Adya ' + an.adya));
  } else {
    add(head, el('strong', null, 'No dependency cycle between transactions'));
  }
  add(body, el('p', 'explain-sentence', an.sentence || ''));
  const cyc = list(X.cycle);
  if (cyc.length) {
    const ul = add(body, el('ul', 'explain-cycle'));
    cyc.forEach((e) => add(ul, el('li', 'dep dep-' + e.kind, edgeText(e))));
  }
  const p = X.criticalPair;
  if (p) {
    const t = p.found
      ? 'Critical pair: step ' + p.first + ' (' + p.firstActor + ': ' + p.firstSql + ') before step ' + p.second + ' (' + p.secondActor + ': ' + p.secondSql + '); with step ' + p.second + ' first, everything else kept, the order passes.'
      : 'Critical pair: not found (' + plural(list(p.tried).length, 'reversal') + ' run).';
    add(body, el('p', 'explain-pair', t));
  }
  const levels = list(X.levels);
  if (levels.length) {
    const dl = add(body, el('dl', 'explain-levels'));
    levels.forEach((l) => {
      add(dl, el('dt', null, l.level.toUpperCase()));
      const errs = list(l.errors).map((e) => e.actor + ' got ' + e.sqlstate + ' at step ' + e.step);
      add(dl, el('dd', l.held ? 'held' : 'failed', (errs.length ? errs.join('; ') + '; run again; ' : 'no serialization failure; ') + (l.held ? 'the invariant held' : 'the invariant still failed')));
    });
  }
  if (X.fix) add(body, el('p', 'explain-fix fix-' + X.fix.class, 'Fix: ' + X.fix.advice + '.'));
  if (!p && !X.fix) add(body, el('p', 'explain-more', 'Named from the order alone. For the critical pair and whether a stronger isolation level prevents it (each shown by running the order again): ' + explainCommand()));
}

// explainCommand is the replay command the page shows (renderReplay),
// with explain in its place: the same program and artifact.
function explainCommand() {
  const dir = A.scenario.program || './' + A.scenario.name;
  if (SHOWN.kind !== 'embedded' || CONFIG.replayGeneric || !CONFIG.replayCommand.startsWith('interleave replay ')) {
    return 'interleave explain ' + shellQuote(dir) + ' ' + shellQuote(SHOWN.kind === 'embedded' ? CONFIG.fileName : SHOWN.name);
  }
  return 'interleave explain ' + CONFIG.replayCommand.slice('interleave replay '.length);
}

function edgeText(e) {
  const what = e.relation + (e.key ? ' (' + e.key + ')' : '');
  if (e.kind === 'ww') return e.from + ' \u2192ww\u2192 ' + e.to + ': step ' + e.toStep + ' overwrote ' + what + ' written at step ' + e.fromStep;
  if (e.kind === 'wr') return e.from + ' \u2192wr\u2192 ' + e.to + ': step ' + e.toStep + ' read ' + what + ' that step ' + e.fromStep + ' wrote';
  return e.from + ' \u2192rw\u2192 ' + e.to + ': step ' + e.fromStep + ' read ' + what + ' before the write at step ' + e.toStep + ' committed (step ' + e.commitStep + ')';
}

// cycleArrows are the arrows to draw: [fromStep, toStep, label, kind]. An
// anti-dependency goes from the read to the writer's commit, which it came
// before.
function cycleArrows(X) {
  return list(X.cycle).map((e) => (e.kind === 'rw' && e.commitStep ? [e.fromStep, e.commitStep, 'rw', 'rw'] : [e.fromStep, e.toStep, e.kind, e.kind]));
}

// drawCycle draws the cycle over the page's grid, between the unit boxes
// of the steps it names that are on this page, and marks the critical
// pair's boxes.
function drawCycle(grid) {
  const X = explanation();
  if (!X) return;
  const byStep = new Map();
  T.boxes.forEach((x) => {
    if (!x.u.prepare) byStep.set(x.u.releaseStep, x.box);
  });
  const p = X.criticalPair;
  if (p && p.found) {
    [p.first, p.second].forEach((s) => {
      const b = byStep.get(s);
      if (b) {
        b.classList.add('critical');
        badge(b.querySelector('.unit-marks') || add(b, el('span', 'unit-marks')), 'badge-critical', 'critical pair');
      }
    });
  }
  const arrows = cycleArrows(X).filter((a) => byStep.has(a[0]) && byStep.has(a[1]));
  if (!arrows.length) return;
  // Straight arrows of positioned boxes (no SVG: the page names no
  // namespace URL), each from the edge of one unit box to the other's.
  const g = grid.getBoundingClientRect();
  const layer = add(grid, el('div', 'cycle-overlay'));
  layer.setAttribute('aria-label', 'Dependency cycle: ' + list(X.cycle).map((e) => e.from + ' ' + e.kind + ' ' + e.to).join(', '));
  layer.setAttribute('role', 'img');
  arrows.forEach(([from, to, label, kind], i) => {
    const a = byStep.get(from).getBoundingClientRect();
    const b = byStep.get(to).getBoundingClientRect();
    const down = b.top > a.top + 1;
    const up = b.top < a.top - 1;
    const x1 = a.left + a.width * (down || up ? 0.5 : 1) - g.left;
    const y1 = (down ? a.bottom : up ? a.top : a.top + a.height * (0.3 + 0.4 * (i % 2))) - g.top;
    const x2 = b.left + b.width * (down || up ? 0.5 : 0) - g.left;
    const y2 = (down ? b.top : up ? b.bottom : b.top + b.height * (0.3 + 0.4 * (i % 2))) - g.top;
    const len = Math.hypot(x2 - x1, y2 - y1);
    const line = add(layer, el('div', 'cycle-edge dep-' + kind));
    line.style.left = x1 + 'px';
    line.style.top = y1 + 'px';
    line.style.width = Math.max(len, 1) + 'px';
    line.style.transform = 'rotate(' + Math.atan2(y2 - y1, x2 - x1) + 'rad)';
    const t = add(layer, el('div', 'cycle-label dep-' + kind, label + ': step ' + from + ' \u2192 ' + to));
    // Labels along their arrows at different fractions, so that arrows
    // that cross do not put their labels on one another.
    const f = (i + 1) / (arrows.length + 1);
    t.style.left = x1 + (x2 - x1) * f + 'px';
    t.style.top = y1 + (y2 - y1) * f + 'px';
  });
}
