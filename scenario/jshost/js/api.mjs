// The original JavaScript tool's library functions, working: each drives
// the interleave binary with --json and returns the object it printed
// (the schemas are in docs/json). A scenario may be a file path or a
// defineScenario object in memory; an object runs in this process, through
// the bridge (bridge.mjs). Errors are InterleaveErrors: the binary's one
// sentence as the message, and exitCode.

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { checkScenario, scenarioOrigin } from './define.mjs';
import { flagsFor, optionNames } from './options.mjs';
import { runJSON as runBinary } from './binary.mjs';
import { bridgeModule, serveScenario } from './bridge.mjs';
import { parseRunArtifact } from './artifact.mjs';

export { InterleaveError } from './binary.mjs';
export { parseRunArtifact, readRunArtifact, writeRunArtifact } from './artifact.mjs';

/** Search for an order that breaks the invariant: `interleave run` (docs/json/summary.v1). */
export function explore(target, options = {}) {
  return command('run', 'explore', target, null, options);
}

/** Run the default order once (or options.plan): `interleave run --max-runs 1` (summary.v1). */
export function runOnce(target, options = {}) {
  const once = options.plan === undefined && options.maxRuns === undefined ? { maxRuns: 1 } : {};
  return command('run', 'runOnce', target, null, { ...options, ...once });
}

/** runOnce for a scenario file (a path); the original's supervised file run. */
export function runScenarioFile(file, options = {}) {
  if (typeof file !== 'string') throw new TypeError('runScenarioFile() needs the path of a scenario file; use runOnce() for a scenario object');
  return runOnce(file, options);
}

/** Replay a recorded artifact (a path or an artifact object): `interleave replay` (replay.v1). */
export function replay(target, artifact, options = {}) {
  return command('replay', 'replay', target, artifact, options);
}

/** Reduce a failing artifact to the fewest choices: `interleave minimize` (minimize.v1). */
export function minimize(target, artifact, options = {}) {
  return command('minimize', 'minimize', target, artifact, options);
}

/** The HTML report of an artifact, as a string (`interleave report`). */
export async function renderReport(artifact, options = {}) {
  if (options.out !== undefined) throw new TypeError('renderReport() returns the HTML; use writeReport(file, artifact) to write it');
  return withTemp(async (dir) => {
    const out = path.join(dir, 'report.html');
    await writeReport(out, artifact, options);
    return readFile(out, 'utf8');
  });
}

/** Write the HTML report of an artifact to file: `interleave report` (report.v1). */
export async function writeReport(file, artifact, options = {}) {
  notInHost('writeReport');
  if (typeof file !== 'string' || file === '') throw new TypeError('writeReport() needs the HTML file to write');
  return withTemp(async (dir) => {
    const art = await artifactPath(artifact, dir);
    const flags = flagsFor('report', 'writeReport', { ...options, out: file });
    return runJSON(['report', art, ...flags], options);
  });
}

/** Package a failure as an offline regression bundle: `interleave export` (export.v1). */
export async function exportRegression(target, artifact, options = {}) {
  notInHost('exportRegression');
  if (typeof target !== 'string') {
    throw new TypeError('exportRegression() needs the scenario file: a bundle replays offline without the process that holds a scenario object; pass the path of a scenario module');
  }
  if (typeof options.out !== 'string') throw new TypeError('exportRegression() needs options.out, the bundle directory to create');
  return withTemp(async (dir) => {
    const art = await artifactPath(artifact, dir);
    return runJSON(['export', target, art, ...flagsFor('export', 'exportRegression', options)], options);
  });
}

/** Check a bundle against its manifest without running anything: `interleave export --verify` (export.v1). */
export async function verifyRegressionExport(bundle, options = {}) {
  notInHost('verifyRegressionExport');
  if (typeof bundle !== 'string' || bundle === '') throw new TypeError('verifyRegressionExport() needs the bundle directory');
  for (const key of Object.keys(options)) {
    if (!['signal', 'binary', 'cwd', 'env'].includes(key)) throw new TypeError(`verifyRegressionExport() has no option ${JSON.stringify(key)}`);
  }
  return runJSON(['export', '--verify', bundle], options);
}

// command runs one scenario command on target (a path, or a scenario
// object served over the bridge) and, for replay and minimize, artifact.
async function command(name, fn, target, artifact, options) {
  notInHost(fn);
  const flags = flagsFor(name, fn, options);
  return withTemp(async (dir) => {
    const args = [name];
    let served;
    if (typeof target === 'string') {
      args.push(target);
    } else {
      checkScenario(target);
      const origin = scenarioOrigin(target);
      const module = path.join(dir, 'scenario.mjs');
      await writeFile(module, bridgeModule(sourcesOf(origin)), { mode: 0o600 });
      served = await serveScenario(target, origin);
      args.push(module);
    }
    try {
      if (artifact !== null) args.push(await artifactPath(artifact, dir));
      return await runJSON([...args, ...flags], { ...options, env: { ...options.env, ...served?.env } });
    } finally {
      await served?.close();
    }
  });
}

// notInHost refuses a call from a scenario that the binary's Node host
// runs: it would start the binary that runs it, without end.
function notInHost(fn) {
  if (globalThis[Symbol.for('interleave.host')] === true) {
    throw new Error(`${fn}() cannot be called from a scenario that interleave is running; call it from a test file or a script (it starts the interleave binary)`);
  }
}

// sourcesOf lists, as file: URLs, what an exact replay of a scenario
// defined in origin checks besides the generated module: origin itself, and
// the nearest package.json and lockfile above it. (The modules origin
// imports cannot be listed from here; see docs/migrating.md.)
function sourcesOf(origin) {
  if (!origin.startsWith('file:')) return [];
  const out = [origin];
  let pkg = false;
  let lock = false;
  for (let dir = path.dirname(fileURLToPath(origin)); ; dir = path.dirname(dir)) {
    if (!pkg && existsSync(path.join(dir, 'package.json'))) {
      out.push(pathToFileURL(path.join(dir, 'package.json')).href);
      pkg = true;
    }
    for (const name of ['package-lock.json', 'npm-shrinkwrap.json', 'pnpm-lock.yaml', 'yarn.lock', 'bun.lock']) {
      if (!lock && existsSync(path.join(dir, name))) {
        out.push(pathToFileURL(path.join(dir, name)).href);
        lock = true;
      }
    }
    if ((pkg && lock) || path.dirname(dir) === dir) break;
  }
  return out;
}

// artifactPath is artifact's file: the path given, or a file in dir that
// holds the artifact object given.
async function artifactPath(artifact, dir) {
  if (typeof artifact === 'string' && artifact !== '') return artifact;
  const a = parseRunArtifact(artifact);
  const file = path.join(dir, 'artifact.json');
  await writeFile(file, JSON.stringify(a), { mode: 0o600 });
  return file;
}

// runJSON runs the binary; its errors name the options, not the flags.
async function runJSON(args, options) {
  try {
    return await runBinary(args, options);
  } catch (err) {
    if (typeof err.exitCode === 'number') err.message = optionNames(err.message);
    throw err;
  }
}

async function withTemp(fn) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'interleave-js-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
