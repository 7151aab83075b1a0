// open.js: open another artifact file, with the file picker or by dropping
// it on the page, and download the JSON of the artifact being shown. A file
// is read and validated in the page (validate.js) before anything of it is
// shown; nothing is sent anywhere and nothing in it is executed.
let EMBEDDED = null; // the report's own artifact: {a, source}
let SHOWN = null; // where the shown artifact came from: {kind, name, text}
let downloadURL = null;

function openStatus(text, tone) {
  const s = $('open-status');
  s.replaceChildren();
  s.hidden = !text;
  s.className = 'open-status tone-' + (tone || 'info');
  if (text) add(s, el('p', null, text));
}

function describeShown() {
  if (!SHOWN) return 'no artifact';
  return SHOWN.kind === 'embedded' ? 'this report\u2019s own artifact (' + A.scenario.name + ')' : '\u201c' + SHOWN.name + '\u201d';
}

async function openFile(file, how) {
  if (!file) return;
  const name = file.name || 'the file';
  const refuse = (why) => openStatus('\u201c' + name + '\u201d was not opened: ' + why + '. The page still shows ' + describeShown() + '.', 'bad');
  if (file.size > CONFIG.maxFileSize) return refuse('it is larger than ' + thousands(CONFIG.maxFileSize) + ' bytes, the most an artifact file may be');
  openStatus('Reading \u201c' + name + '\u201d\u2026', 'info');
  let text;
  try {
    text = await file.text();
  } catch (e) {
    return refuse('it could not be read (' + e.message + ')');
  }
  let a;
  try {
    a = parseArtifact(text);
  } catch (e) {
    if (e instanceof ArtifactError) return refuse('it is not a valid Interleave artifact: ' + e.message);
    throw e;
  }
  window.scrollTo(0, 0);
  show(a, { kind: how, name, text });
  openStatus('Showing \u201c' + name + '\u201d, ' + how + ' from your computer (read in this page; nothing was sent anywhere).', 'good');
}

function downloadJSON() {
  if (downloadURL) URL.revokeObjectURL(downloadURL);
  downloadURL = URL.createObjectURL(new Blob([SHOWN.text], { type: 'application/json' }));
  const link = el('a');
  link.download = SHOWN.name;
  link.setAttribute('href', downloadURL);
  link.hidden = true;
  add(document.body, link);
  link.click();
  link.remove();
}

function setUpOpen() {
  const input = $('open-file');
  $('open-button').addEventListener('click', () => input.click());
  input.addEventListener('change', () => {
    const f = input.files[0];
    input.value = '';
    openFile(f, 'opened');
  });
  const overlay = $('drop-overlay');
  let depth = 0;
  const hasFiles = (e) => !!e.dataTransfer && [...e.dataTransfer.types].includes('Files');
  document.addEventListener('dragenter', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    depth++;
    overlay.hidden = false;
  });
  document.addEventListener('dragover', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
  });
  document.addEventListener('dragleave', (e) => {
    if (!hasFiles(e)) return;
    depth = Math.max(0, depth - 1);
    if (!depth) overlay.hidden = true;
  });
  // A drop never navigates away from the report, whatever is dropped.
  document.addEventListener('drop', (e) => {
    e.preventDefault();
    depth = 0;
    overlay.hidden = true;
    const files = e.dataTransfer ? e.dataTransfer.files : [];
    if (files.length === 1) openFile(files[0], 'dropped');
    else openStatus(files.length ? 'Drop one artifact file at a time.' : 'Only a file can be dropped here: drop an Interleave artifact (.json).', 'bad');
  });
  $('download').addEventListener('click', downloadJSON);
  $('show-embedded').addEventListener('click', () => {
    window.scrollTo(0, 0);
    show(EMBEDDED.a, EMBEDDED.source);
    openStatus('Showing this report\u2019s own artifact again.', 'info');
  });
}
