// The module of '@pginterleave/interleave': defineScenario (checked as the
// original JavaScript tool checks it), processActor, and the original's
// library functions (explore, replay, minimize, ...), which drive the
// interleave binary. The binary's Node host also resolves the original
// package name '@pavangupta352/interleave' to this module when it runs a
// scenario file.

import { spawn } from 'node:child_process';

export { defineScenario } from './define.mjs';
export {
  explore,
  runOnce,
  runScenarioFile,
  replay,
  minimize,
  renderReport,
  writeReport,
  exportRegression,
  verifyRegressionExport,
  parseRunArtifact,
  readRunArtifact,
  writeRunArtifact,
  InterleaveError,
} from './api.mjs';

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

