// legend.js: what every mark in the timeline means. The samples are made by
// the same code as the marks themselves, and each entry names the class it
// explains (data-legend), so that the browser test can hold the two together.
const LEGEND = [
  ['unit-id', () => el('span', 'unit-id actor-c0', 'alice #0.2'), 'a release unit: the actor, its connection (#0 is the first) and the unit\u2019s number on that connection, counted from 0'],
  ['unit-tag', () => el('span', 'unit-tag', 'UPDATE 1'), 'PostgreSQL\u2019s command tag: the command and how many rows it returned or changed'],
  ['badge-failing', () => failingMark(el('span', 'legend-marks')), 'the failing step: where the failure shows \u2014 the unit that got the error, or else the last one to change rows before the invariant was checked (the page infers it; the artifact does not name it)'],
  ['badge-choice', () => badge(el('span'), 'badge-choice', 'choice'), 'a choice: released out of the default first-come order; the search chose this step'],
  ['badge-prepare', () => badge(el('span'), 'badge-prepare', 'prepare'), 'a statement preparation: the driver\u2019s Parse and Describe before it first runs a statement; never a choice'],
  ['badge-pair', () => badge(el('span'), 'badge-pair', 'pair'), 'released together with another unit (--overlap pairs): PostgreSQL ran the two at once'],
  ['badge-fault', () => badge(el('span'), 'badge-fault', 'fault lost-reply'), 'a fault the search injected at this unit (--faults): lost-reply (it ran; its reply was lost with the connection), reset (the connection dropped before it reached PostgreSQL) or terminate (PostgreSQL terminated the backend)'],
  ['badge-wait', () => badge(el('span'), 'badge-wait', 'waited on bob'), 'PostgreSQL reported this unit waiting for a lock another actor held'],
  ['wait-bar', () => el('span', 'wait-bar', 'waiting for bob'), 'how long it waited: from its release to the last step released before it completed'],
  ['badge-blocked', () => badge(el('span'), 'badge-blocked', '1 blocked'), 'in a step heading: units waiting on a lock when the scheduler made this step'],
  ['badge-error', () => badge(el('span'), 'badge-error', 'SQLSTATE 40001'), 'PostgreSQL answered with an error; the code is its SQLSTATE'],
  ['badge-unreleased', () => badge(el('span'), 'badge-muted badge-unreleased', 'never released'), 'still held at the gate when the attempt ended'],
  ['badge-incomplete', () => badge(el('span'), 'badge-muted badge-incomplete', 'not completed'), 'released, but PostgreSQL had not answered when the attempt ended'],
];

function failingMark(parent) {
  return badge(parent, 'badge-failing', 'failing step');
}

function buildLegend() {
  const dl = $('legend');
  dl.replaceChildren();
  for (const [cls, sample, text] of LEGEND) {
    const item = add(dl, el('div', 'legend-item'));
    item.dataset.legend = cls;
    add(add(item, el('dt')), sample());
    add(item, el('dd', null, text));
  }
}
