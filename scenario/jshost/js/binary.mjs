// Finding the interleave binary and running one command of it with --json:
// what the JavaScript API and the npx entry point share.

import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import path from 'node:path';

/** The package this module ships in, and its platform packages' prefix. */
export const packageName = '@pginterleave/interleave';

/** The platform package's name for this machine, e.g. @pginterleave/interleave-linux-x64. */
export function platformPackage(platform = process.platform, arch = process.arch) {
  return `${packageName}-${platform}-${arch}`;
}

/**
 * findBinary returns the interleave executable to run: $INTERLEAVE_BINARY,
 * else the binary of this platform's package (an optional dependency of
 * this package), else interleave on PATH. It throws saying what to install.
 */
export function findBinary() {
  const fromEnv = process.env.INTERLEAVE_BINARY;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`INTERLEAVE_BINARY names ${fromEnv}, which does not exist; unset it or point it at an interleave binary`);
    return fromEnv;
  }
  const exe = process.platform === 'win32' ? 'interleave.exe' : 'interleave';
  const pkg = platformPackage();
  try {
    return createRequire(import.meta.url).resolve(`${pkg}/bin/${exe}`);
  } catch {
    // not installed: try PATH below
  }
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && existsSync(path.join(dir, exe))) return path.join(dir, exe);
  }
  throw new Error(
    `no interleave binary for ${process.platform}-${process.arch}: ${pkg} is not installed ` +
      '(npm skips optional dependencies with --omit=optional or --no-optional; run npm install again without it), ' +
      'and interleave is not on PATH (go install github.com/pginterleave/interleave/cmd/interleave@latest); ' +
      'or set INTERLEAVE_BINARY to the binary',
  );
}

/** An Error from the interleave binary: the message it printed, and its exit code. */
export class InterleaveError extends Error {
  constructor(message, exitCode, output) {
    super(message);
    this.name = 'InterleaveError';
    this.exitCode = exitCode;
    if (output !== undefined) this.output = output;
  }
}

const stderrKeep = 8192;

/**
 * runJSON runs `interleave ARGS --json` and returns the object it printed.
 * An error object (docs/json/error.v1) or an exit without one becomes an
 * InterleaveError with the exit code. options: env (added to this
 * process's), cwd, signal (an AbortSignal: SIGINT to the binary, which
 * cleans up and exits 130).
 */
export function runJSON(args, options = {}) {
  const binary = options.binary ?? findBinary();
  return new Promise((resolve, reject) => {
    const child = spawn(binary, [...args, '--json'], {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out = [];
    let err = '';
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => { err = (err + c.toString('utf8')).slice(-stderrKeep); });
    const stop = () => child.kill('SIGINT');
    options.signal?.addEventListener('abort', stop, { once: true });
    child.on('error', (e) => {
      options.signal?.removeEventListener('abort', stop);
      reject(new InterleaveError(`the interleave binary ${binary} could not start: ${e.message}`, 2));
    });
    child.on('close', (code, signal) => {
      options.signal?.removeEventListener('abort', stop);
      const exitCode = code ?? 128 + (signalNumber[signal] ?? 0);
      const text = Buffer.concat(out).toString('utf8').trim();
      let value;
      try {
        value = JSON.parse(text);
      } catch {
        const tail = err.trim().split('\n').slice(-5).join('\n');
        return reject(new InterleaveError(`interleave ${args[0]} ended (exit ${exitCode}) without its JSON result${tail ? `: ${tail}` : ''}`, exitCode));
      }
      if (value && typeof value.error === 'string') return reject(new InterleaveError(value.error, value.exitCode ?? exitCode, value));
      resolve(value);
    });
  });
}

const signalNumber = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };
