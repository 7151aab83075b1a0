#!/usr/bin/env node
// `npx interleave ...`: runs this platform's interleave binary (from the
// optional dependency @pginterleave/interleave-OS-CPU that npm installed
// for this machine) with the same arguments, and exits as it exits.

import { spawn } from 'node:child_process';
import { findBinary } from '../lib/binary.mjs';

let binary;
try {
  binary = findBinary();
} catch (err) {
  process.stderr.write(`interleave: ${err.message}\n`);
  process.exit(2);
}

const child = spawn(binary, process.argv.slice(2), { stdio: 'inherit' });
// A signal sent to this process goes to the binary, which cleans up and
// exits 128+N; this process waits for it. (Ctrl+C reaches both: the
// binary handles it once.)
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    if (child.exitCode === null) child.kill(sig);
  });
}
child.on('error', (err) => {
  process.stderr.write(`interleave: could not start ${binary}: ${err.message}\n`);
  process.exit(2);
});
child.on('exit', (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 2);
});
