// Reading and writing Interleave's artifacts from JavaScript. The binary
// validates an artifact completely whenever it reads one (replay, minimize,
// report, export); these check its shape, so that a wrong file is refused
// here with a message rather than later.

import { constants } from 'node:fs';
import { link, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';

/** The artifact versions the binary reads. */
export const artifactVersions = [1, 2];
const maxArtifactBytes = 256 << 20;

const shape = {
  schemaVersion: 'number',
  tool: 'object',
  createdAt: 'string',
  scenario: 'object',
  mode: 'string',
  outcome: 'object',
  schedule: 'object',
  units: 'array',
  connections: 'array',
  actors: 'array',
  environment: 'object',
  limits: 'object',
  cleanup: 'object',
};

function typeOf(v) {
  return Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v;
}

/** Check an artifact (JSON text or the parsed object) and return the object. */
export function parseRunArtifact(input) {
  let a = input;
  if (typeof input === 'string') {
    try {
      a = JSON.parse(input);
    } catch (err) {
      throw new TypeError(`not an Interleave artifact: the text is not JSON (${err.message})`);
    }
  }
  if (typeOf(a) !== 'object') throw new TypeError('not an Interleave artifact: expected a JSON object');
  for (const [key, want] of Object.entries(shape)) {
    // connections is absent from version 1 artifacts written with no connection
    if (key === 'connections' && a[key] === undefined) continue;
    if (want === 'array' && a[key] === null) continue; // Go writes an empty list as null
    if (typeOf(a[key]) !== want) throw new TypeError(`not an Interleave artifact: ${key} must be ${want === 'array' ? 'an array' : `a ${want}`} (got ${typeOf(a[key])})`);
  }
  if (!artifactVersions.includes(a.schemaVersion)) {
    throw new TypeError(`the artifact has schemaVersion ${a.schemaVersion}; this Interleave reads versions ${artifactVersions.join(' and ')} (record it again with this version)`);
  }
  if (typeof a.outcome.kind !== 'string') throw new TypeError('not an Interleave artifact: outcome.kind must be a string');
  if (!['array', 'null'].includes(typeOf(a.schedule.decisions))) throw new TypeError('not an Interleave artifact: schedule.decisions must be an array');
  return a;
}

/** Read and check the artifact at file. */
export async function readRunArtifact(file) {
  if (typeof file !== 'string' || file === '') throw new TypeError('readRunArtifact() needs the artifact file path');
  const handle = await open(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0)).catch((err) => {
    if (err.code === 'ELOOP') throw new Error(`refusing to read ${file}: it is a symbolic link`);
    throw err;
  });
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new Error(`${file} is not a regular file`);
    if (st.size > maxArtifactBytes) throw new Error(`${file} is larger than an artifact can be (${maxArtifactBytes} bytes)`);
    return parseRunArtifact(await handle.readFile('utf8'));
  } finally {
    await handle.close();
  }
}

/**
 * Write artifact (checked first) to file atomically, readable by its owner
 * only; an existing file is replaced only with { force: true }.
 */
export async function writeRunArtifact(file, artifact, options = {}) {
  if (typeof file !== 'string' || file === '') throw new TypeError('writeRunArtifact() needs the artifact file path');
  for (const key of Object.keys(options)) {
    if (key !== 'force' && key !== 'overwrite') throw new TypeError(`writeRunArtifact() has no option ${JSON.stringify(key)} (it takes force)`);
  }
  const force = options.force === true || options.overwrite === true;
  const text = JSON.stringify(parseRunArtifact(artifact), null, 2) + '\n';
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomUUID()}.tmp`);
  const handle = await open(temp, 'wx', 0o600);
  let placed = false;
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
    await handle.close();
    if (force) {
      await rename(temp, file);
    } else {
      await link(temp, file).catch((err) => {
        if (err.code === 'EEXIST') throw new Error(`${file} exists; pass { force: true } to replace it`);
        throw err;
      });
      await unlink(temp);
    }
    placed = true;
  } finally {
    if (!placed) {
      await handle.close().catch(() => {});
      await unlink(temp).catch(() => {});
    }
  }
}
