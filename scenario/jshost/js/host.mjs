// Interleave for Go's Node host: one long-lived process that loads a
// defineScenario module once and runs its setup, actors and invariant on
// request from the Go engine.
//
//   node host.mjs SCENARIO SHIM_URL HOOKS_URL NAMES_JSON
//
// Requests arrive on fd 3 and responses leave on fd 4, one JSON object per
// line (see the Go package jshost for the protocol), so that the scenario's
// own console.log on stdout and stderr cannot corrupt them. The host exits
// when fd 3 closes: it never outlives the Go process that started it.

import * as nodeModule from 'node:module';
import net from 'node:net';
import readline from 'node:readline';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';
import { MessageChannel } from 'node:worker_threads';
import { describeError, invariantResults, isAssertion } from './results.mjs';

const [scenarioPath, shimURL, hooksURL, namesJSON] = process.argv.slice(2);
const maxValueBytes = 8 << 20;

const output = new net.Socket({ fd: 4, readable: false, writable: true });
const input = new net.Socket({ fd: 3, readable: true, writable: false });

function send(message) {
  output.write(JSON.stringify(message) + '\n');
}

class LoadError extends Error {
  constructor(kind, message) {
    super(message);
    this.kind = kind;
  }
}

// load registers the resolve hook, loads node-postgres and the scenario, and
// returns the checked scenario, its node-postgres and the file URLs its module
// graph resolved.
async function load() {
  if (typeof nodeModule.register !== 'function') {
    throw new LoadError('node-version',
      `Node.js ${process.version} cannot run JavaScript scenarios: Interleave needs Node.js 20.6 or newer (module.register); install a newer Node.js`);
  }
  const modules = new Set();
  const { port1, port2 } = new MessageChannel();
  let flushed;
  const flushedNow = new Promise((resolve) => { flushed = resolve; });
  port1.on('message', (m) => {
    if (m && m.url) modules.add(m.url);
    if (m && m.flushed) flushed();
  });
  nodeModule.register(hooksURL, {
    data: { shim: shimURL, names: JSON.parse(namesJSON), port: port2 },
    transferList: [port2],
  });

  const dir = path.dirname(scenarioPath);
  let pg;
  let pgMissing;
  try {
    pg = nodeModule.createRequire(scenarioPath)('pg');
  } catch (err) {
    if (!err || err.code !== 'MODULE_NOT_FOUND') throw err;
    pgMissing = new LoadError('pg-missing',
      `node-postgres (the npm package pg) is not installed for ${scenarioPath}: run npm install in ${dir} (or npm install pg); Interleave gives setup and the invariant a pg Client`);
  }
  let mod;
  let failure;
  try {
    mod = await import(pathToFileURL(scenarioPath).href);
  } catch (err) {
    failure = err;
  }
  port1.postMessage({ flush: 1 });
  await flushedNow;
  port1.close();
  if (pgMissing && (failure || !isBridged(mod.default))) throw pgMissing;
  if (failure) {
    const missing = failure.code === 'ERR_MODULE_NOT_FOUND' && /Cannot find package '([^']+)'/.exec(String(failure.message));
    if (missing) {
      throw new LoadError('package-missing', `the package ${missing[1]} that ${scenarioPath} imports is not installed: run npm install in ${dir}`);
    }
    if (failure instanceof SyntaxError) {
      failure.where = syntaxErrorAt(modules);
    }
    throw failure;
  }

  const { defineScenario } = await import(shimURL);
  if (!('default' in mod)) {
    throw new LoadError('export', `${scenarioPath} has no default export; end it with export default defineScenario({ name, setup, actors, invariant })`);
  }
  const scenario = defineScenario(mod.default);
  return { scenario, pg: isBridged(scenario) ? null : pg, modules: [...modules] };
}

// isBridged: a scenario whose functions run in the test process that
// called explore() (bridge.mjs), which opens its own connections; setup and
// the invariant here get no client, and node-postgres need not resolve.
function isBridged(scenario) {
  return scenario !== null && typeof scenario === 'object' && scenario[Symbol.for('interleave.bridge')] === true;
}

// syntaxErrorAt finds where a syntax error is: a dynamic import does not
// say, node --check on each local module does ("/path/file.mjs:LINE").
function syntaxErrorAt(modules) {
  for (const url of modules) {
    if (!url.startsWith('file:') || url.includes('/node_modules/')) continue;
    const file = fileURLToPath(url);
    const check = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8', timeout: 10000 });
    if (check.status === 0) continue;
    const at = /^(?:file:\/\/)?(\/[^\n]*):(\d+)$/m.exec(check.stderr ?? '');
    if (at) return `${at[1]}:${at[2]}`;
  }
  return '';
}

// The direct connection of setup and the invariant: opened by setup, kept
// for the invariant of the same attempt (the original tool hands both the
// same client), ended after it. The next attempt's reset terminates a
// client left behind when no invariant ran; its error is expected.
let direct = null;

async function openDirect(pg, db) {
  const client = new pg.Client({ ...db.options });
  const entry = { key: db.connectionString, client, usable: true };
  client.on('error', () => { entry.usable = false; });
  client.on('end', () => { entry.usable = false; });
  await client.connect();
  return entry;
}

function dropDirect() {
  if (direct) {
    const { client } = direct;
    direct = null;
    client.end().catch(() => {});
  }
}

function databaseContext(client, db) {
  return {
    db: client,
    connectionString: db.connectionString,
    // A fresh configuration on every read, as the original tool does.
    get connectionOptions() {
      return JSON.parse(JSON.stringify(db.options));
    },
  };
}

// aborts holds the AbortController of each running actor by request id;
// settled holds those of actors that have returned, whose signals fire when
// their attempt ends (after the invariant, or at the next setup when no
// invariant ran), as the original tool fires them at the end of each run.
const aborts = new Map();
let settled = [];

function endAttempt() {
  const ended = settled;
  settled = [];
  for (const c of ended) c.abort(new DOMException('the attempt ended', 'AbortError'));
}

async function serve(loaded, request) {
  const { scenario, pg } = loaded;
  switch (request.op) {
    case 'setup': {
      endAttempt();
      dropDirect();
      if (!pg) {
        await scenario.setup(databaseContext(null, request.db));
        return {};
      }
      direct = await openDirect(pg, request.db);
      await scenario.setup(databaseContext(direct.client, request.db));
      return {};
    }
    case 'actor': {
      const controller = new AbortController();
      aborts.set(request.id, controller);
      try {
        const fn = scenario.actors[request.actor];
        const value = await fn({ actor: request.actor, connectionString: request.connectionString, signal: controller.signal });
        return { value };
      } finally {
        aborts.delete(request.id);
        settled.push(controller);
      }
    }
    case 'invariant': {
      if (!pg) {
        try {
          await scenario.invariant({ ...databaseContext(null, request.db), results: invariantResults(request.results) });
        } finally {
          endAttempt();
        }
        return {};
      }
      let entry = direct && direct.usable && direct.key === request.db.connectionString ? direct : null;
      direct = null;
      if (!entry) entry = await openDirect(pg, request.db);
      try {
        await scenario.invariant({ ...databaseContext(entry.client, request.db), results: invariantResults(request.results) });
      } finally {
        entry.client.end().catch(() => {});
        endAttempt();
      }
      return {};
    }
    default:
      throw new Error(`unknown request ${JSON.stringify(request.op)}`);
  }
}

// respond writes the outcome of one request. A value is written as it was
// encoded here, so that the Go side keeps it byte for byte.
async function respond(loaded, request) {
  let result;
  try {
    result = await serve(loaded, request);
  } catch (err) {
    const error = describeError(err);
    error.kind = request.op === 'invariant' && isAssertion(err) ? 'assertion' : 'throw';
    send({ id: request.id, ok: false, error });
    return;
  }
  if (result.value === undefined) {
    send({ id: request.id, ok: true });
    return;
  }
  let json;
  try {
    json = JSON.stringify(result.value);
  } catch (err) {
    json = null;
    result.reason = describeError(err).message;
  }
  if (typeof json !== 'string') {
    const why = result.reason ?? `JSON has no encoding for a ${typeof result.value}`;
    send({ id: request.id, ok: false, error: { kind: 'value', name: 'TypeError', message: `returned a value that cannot be recorded as JSON: ${why}` } });
    return;
  }
  const bytes = Buffer.byteLength(json);
  if (bytes > maxValueBytes) {
    send({ id: request.id, ok: false, error: { kind: 'value', name: 'RangeError', message: `returned a value of ${bytes} bytes as JSON; the limit is ${maxValueBytes}` } });
    return;
  }
  output.write(`{"id":${request.id},"ok":true,"value":${json}}\n`);
}

// Exceptions that escape the scenario's functions (an 'error' event nobody
// listens to on a pool left open, an unhandled rejection) are written to
// stderr; they must not end the host that later attempts share.
function stray(kind) {
  return (err) => {
    const { name, message } = describeError(err);
    process.stderr.write(`interleave: ${kind} outside setup, an actor or the invariant: ${name}: ${message}\n`);
  };
}

async function main() {
  // The library functions (explore, ...) refuse to run in here: a scenario
  // that called them would start the binary that runs it, without end.
  globalThis[Symbol.for('interleave.host')] = true;
  let loaded;
  try {
    loaded = await load();
  } catch (err) {
    const error = describeError(err);
    error.kind = err instanceof LoadError ? err.kind : 'load';
    send({ id: 0, ok: false, error });
    output.end(() => process.exit(1));
    return;
  }
  process.on('uncaughtException', stray('an uncaught exception'));
  process.on('unhandledRejection', stray('an unhandled rejection'));
  send({
    id: 0,
    ok: true,
    hello: {
      name: loaded.scenario.name,
      actors: Object.keys(loaded.scenario.actors).sort(),
      modules: loaded.modules,
      node: process.version,
    },
  });
  const lines = readline.createInterface({ input, crlfDelay: Infinity });
  lines.on('line', (line) => {
    let request;
    try {
      request = JSON.parse(line);
    } catch {
      process.stderr.write('interleave: the host received a line that is not JSON\n');
      return;
    }
    if (request.op === 'abort') {
      const controller = aborts.get(request.target);
      if (controller) controller.abort(new DOMException('the attempt ended (its deadline passed or it was cancelled)', 'AbortError'));
      return;
    }
    respond(loaded, request);
  });
  // The Go side closed its end (Close, or it died): nothing is left to do.
  lines.on('close', () => process.exit(0));
}

main();
