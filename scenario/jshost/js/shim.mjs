// The module a scenario gets when it imports '@pavangupta352/interleave' (the
// original JavaScript tool) or '@pginterleave/interleave' under Interleave
// for Go. It is not the original package: it checks a scenario the way the
// original's defineScenario does and hands it to the Go engine, which owns
// the search, the proxies and the artifacts. The original's library
// functions that run searches from JavaScript throw a clear error instead.

import { spawn } from 'node:child_process';

const actorId = /^[a-zA-Z][a-zA-Z0-9_-]{0,47}$/;
const reservedIds = new Set(['__proto__', 'prototype', 'constructor']);

function isPlainObject(value) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

// field returns an own, enumerable data property, or throws naming it.
function field(object, key, label) {
  const d = Object.getOwnPropertyDescriptor(object, key);
  if (!d || !d.enumerable || !('value' in d)) {
    throw new TypeError(`${label} must be an own enumerable value`);
  }
  return d.value;
}

/** Check a scenario ({ name, setup, actors, invariant }) and return it unchanged. */
export function defineScenario(scenario) {
  if (!isPlainObject(scenario)) {
    throw new TypeError('Scenario must be a plain object: defineScenario({ name, setup, actors, invariant })');
  }
  const name = field(scenario, 'name', 'Scenario name');
  if (typeof name !== 'string' || name.trim() === '' || name.length > 256) {
    throw new TypeError('Scenario name must contain 1 to 256 characters and cannot be blank');
  }
  for (const key of ['setup', 'invariant']) {
    if (typeof field(scenario, key, `Scenario ${key}`) !== 'function') {
      throw new TypeError(`Scenario ${key} must be a function`);
    }
  }
  const actors = field(scenario, 'actors', 'Scenario actors');
  if (!isPlainObject(actors)) {
    throw new TypeError('Scenario actors must be a plain object mapping actor ids to async functions');
  }
  if (Object.getOwnPropertySymbols(actors).length > 0) {
    throw new TypeError('Scenario actors must use string actor ids');
  }
  const ids = Object.getOwnPropertyNames(actors);
  if (ids.length < 2 || ids.length > 8) {
    throw new TypeError(`Scenario actors must contain between 2 and 8 actors (found ${ids.length})`);
  }
  for (const id of ids) {
    if (!actorId.test(id) || reservedIds.has(id)) {
      throw new TypeError(`Scenario actor id ${JSON.stringify(id)} is invalid: ids start with a letter and use letters, digits, '_' and '-' (at most 48)`);
    }
    if (typeof field(actors, id, `Scenario actor ${id}`) !== 'function') {
      throw new TypeError(`Scenario actor ${id} must be a function`);
    }
  }
  return scenario;
}

/**
 * An actor that runs an external program (any language) against the actor's
 * proxy: DATABASE_URL and the libpq PG* variables point at it. Options: cwd,
 * env (an object, or a function of the actor context), output ('json': stdout
 * is empty or one JSON document, the actor's value; 'ignore'),
 * maxOutputBytes (default 1 MiB), killGraceMs (default 1000).
 */
export function processActor(command, args = [], options = {}) {
  if (typeof command !== 'string' || command === '') throw new TypeError('processActor requires a command');
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) {
    throw new TypeError('processActor arguments must be strings');
  }
  const output = options.output ?? 'json';
  if (output !== 'json' && output !== 'ignore') throw new TypeError("processActor output must be 'json' or 'ignore'");
  const maxOutput = positive(options.maxOutputBytes, 1 << 20, 8 << 20, 'maxOutputBytes');
  const grace = positive(options.killGraceMs, 1000, 60000, 'killGraceMs');
  const argv = [...args];
  return (context) => runProgram(command, argv, options, output, maxOutput, grace, context);
}

function positive(value, fallback, max, name) {
  const n = value ?? fallback;
  if (!Number.isSafeInteger(n) || n < 1 || n > max) throw new TypeError(`${name} must be an integer from 1 to ${max}`);
  return n;
}

function actorEnv(context, extra) {
  const url = new URL(context.connectionString);
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('PG') && k !== 'DATABASE_URL') env[k] = v;
  }
  Object.assign(env, {
    DATABASE_URL: context.connectionString,
    INTERLEAVE_ACTOR: context.actor,
    PGHOST: url.hostname,
    PGPORT: url.port,
    PGDATABASE: decodeURIComponent(url.pathname.slice(1)),
    PGUSER: decodeURIComponent(url.username),
    PGPASSWORD: decodeURIComponent(url.password),
    PGSSLMODE: 'disable',
    PGGSSENCMODE: 'disable',
  });
  return Object.assign(env, typeof extra === 'function' ? extra(context) : extra);
}

function runProgram(command, argv, options, output, maxOutput, grace, context) {
  context.signal.throwIfAborted();
  const env = actorEnv(context, options.env);
  const password = env.PGPASSWORD;
  const hide = (s) => (password ? s.split(password).join('REDACTED') : s);
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout = [];
    let stdoutBytes = 0;
    let stderrTail = '';
    let tooMuch = false;
    let killTimer;
    const stop = () => {
      child.kill('SIGTERM');
      killTimer = setTimeout(() => child.kill('SIGKILL'), grace);
      killTimer.unref();
    };
    context.signal.addEventListener('abort', stop, { once: true });
    child.stdout.on('data', (chunk) => {
      if (output === 'ignore' || tooMuch) return;
      stdoutBytes += chunk.length;
      if (stdoutBytes > maxOutput) {
        tooMuch = true;
        stop();
        return;
      }
      stdout.push(chunk);
    });
    child.stderr.on('data', (chunk) => {
      stderrTail = (stderrTail + chunk.toString('utf8')).slice(-2048);
    });
    child.on('error', (err) => reject(new Error(`process actor ${command} could not start: ${err.code ?? err.message}`)));
    child.on('close', (code, signal) => {
      context.signal.removeEventListener('abort', stop);
      clearTimeout(killTimer);
      const tail = hide(stderrTail.trim());
      const detail = tail ? `: ${tail}` : '';
      if (context.signal.aborted) return reject(new Error(`process actor ${command} was cancelled when the attempt ended`));
      if (tooMuch) return reject(new Error(`process actor ${command} wrote more than ${maxOutput} bytes to stdout`));
      if (code !== 0) {
        return reject(new Error(`process actor ${command} ${signal ? `was killed by ${signal}` : `exited with status ${code}`}${detail}`));
      }
      const text = output === 'json' ? Buffer.concat(stdout).toString('utf8').trim() : '';
      if (text === '') return resolve(undefined);
      try {
        resolve(JSON.parse(text));
      } catch {
        reject(new Error(`process actor ${command} printed something other than one JSON document on stdout (write logs to stderr)${detail}`));
      }
    });
  });
}

function notHere(name) {
  return function unsupported() {
    throw new Error(
      `${name}() is not supported from JavaScript in Interleave for Go; run the scenario file with the interleave CLI instead ` +
        '(interleave run|replay|minimize|export scenario.mjs; interleave report ARTIFACT)',
    );
  };
}

export const runOnce = notHere('runOnce');
export const runScenarioFile = notHere('runScenarioFile');
export const explore = notHere('explore');
export const replay = notHere('replay');
export const minimize = notHere('minimize');
export const renderReport = notHere('renderReport');
export const writeReport = notHere('writeReport');
export const exportRegression = notHere('exportRegression');
export const verifyRegressionExport = notHere('verifyRegressionExport');
export const parseRunArtifact = notHere('parseRunArtifact');
export const readRunArtifact = notHere('readRunArtifact');
export const writeRunArtifact = notHere('writeRunArtifact');
