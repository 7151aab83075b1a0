// main.js: show() puts an artifact on every part of the page; start-up
// shows the one embedded in the file.
performance.mark('interleave:script-start');

// start runs each part on its own, so that one that fails on an odd
// artifact leaves the others working and says so on the page.
function start(name, part) {
  try {
    part();
  } catch (e) {
    add($('page-errors'), el('p', 'insp-error', 'The ' + name + ' could not be built: ' + e));
    if (window.console) console.error(e);
  }
}

function firstUnit() {
  return M.failing || M.ordered.find((u) => !u.prepare && released(u)) || M.ordered[0] || null;
}

function show(a, source) {
  A = a;
  SHOWN = source;
  $('page-errors').replaceChildren();
  buildModel(a);
  $('show-embedded').hidden = source.kind === 'embedded';
  start('header', () => renderHeader(a));
  start('explanation', renderExplanation);
  start('filters', buildFilters);
  start('timeline', applyFilters);
  start('inspector', () => {
    const u = firstUnit();
    if (!u) {
      inspector.replaceChildren(el('p', 'none', 'This attempt recorded no release units.'));
      return;
    }
    select(u);
    reveal(u, false);
  });
  start('side sections', () => {
    renderCancels(a);
    renderEnvironment(a);
    renderReplay(a, source);
  });
  if (T.printing) start('table of all units', buildPrintTable);
}

start('legend', buildLegend);
start('controls', () => {
  setUpTimelineControls();
  setUpCopy();
  setUpOpen();
});
start('print view', () => {
  window.matchMedia('print').addEventListener('change', (e) => setPrinting(e.matches));
  window.addEventListener('beforeprint', () => {
    setPrinting(true);
    document.querySelectorAll('details').forEach((d) => (d.open = true));
  });
  window.addEventListener('afterprint', () => setPrinting(false));
});
start('report', () => {
  const text = $('artifact-data').textContent;
  EMBEDDED = { a: parseArtifact(text), source: { kind: 'embedded', name: CONFIG.fileName, text } };
  performance.mark('interleave:validated');
  show(EMBEDDED.a, EMBEDDED.source);
});
document.body.classList.add('ready');
performance.mark('interleave:ready');
requestAnimationFrame(() => performance.mark('interleave:first-frame'));
