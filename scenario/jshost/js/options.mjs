// The one list of the JavaScript API's options: for each, the interleave
// flag it becomes, how its value is checked and written, and the commands
// that take it. The original tool's option names are here too, mapped to
// what does the same, or refused with what to use instead.

const attempt = ['run', 'replay', 'minimize'];
const file = ['run', 'replay', 'minimize', 'report', 'export'];

const int = (v) => Number.isSafeInteger(v) && v >= 0;
const kinds = {
  int: { check: int, want: 'a non-negative integer', write: String },
  ms: { check: int, want: 'a non-negative integer of milliseconds', write: (v) => `${v}ms` },
  string: { check: (v) => typeof v === 'string' && v !== '', want: 'a non-empty string', write: String },
  bool: { check: (v) => typeof v === 'boolean', want: 'true or false' },
  plan: {
    check: (v) => Array.isArray(v) && v.length > 0 && v.every((a) => typeof a === 'string' && /^[a-zA-Z][a-zA-Z0-9_+-]*$/.test(a)),
    want: "an array of actor ids such as ['alice', 'bob', 'alice', 'bob']",
    write: (v) => v.join(','),
  },
};

function oneOf(values) {
  return { check: (v) => Object.hasOwn(values, v), want: `one of ${Object.keys(values).map((k) => `'${k}'`).join(', ')}`, write: (v) => values[v] };
}

/**
 * apiOptions: name -> { flag, kind, commands } (a boolean's flag is given
 * for true; inverted: for false), or { none: 'what to do instead' }, or
 * { accepted: 'why nothing needs to change' }.
 */
export const apiOptions = {
  // where PostgreSQL comes from
  databaseUrl: { flag: '--database-url', kind: kinds.string, commands: attempt },
  pgBin: { flag: '--pg-bin', kind: kinds.string, commands: attempt },
  docker: { flag: '--docker', kind: kinds.bool, commands: attempt },
  dockerImage: { flag: '--docker-image', kind: kinds.string, commands: attempt },
  upstreamTls: { flag: '--upstream-tls', kind: kinds.bool, commands: attempt },
  upstreamCa: { flag: '--upstream-ca', kind: kinds.string, commands: attempt },
  // one attempt
  timeoutMs: { flag: '--attempt-timeout', kind: kinds.ms, commands: attempt },
  connectionProfile: {
    flag: '--connections',
    kind: oneOf({ 'single-producer-v1': 'single-producer', 'multi-producer-v1': 'multi-producer', 'single-producer': 'single-producer', 'multi-producer': 'multi-producer' }),
    commands: attempt,
  },
  protocolProfile: {
    flag: '--protocol-profile',
    kind: oneOf({ 'sync-cycle-v1': 'sync-cycle', 'describe-flush-v1': 'flush-stages', 'sync-cycle': 'sync-cycle', 'flush-stages': 'flush-stages' }),
    commands: attempt,
  },
  maxMessageBytes: { flag: '--max-message', kind: kinds.int, commands: attempt },
  capture: { flag: '--capture', kind: oneOf({ failures: 'failures', all: 'all', off: 'off' }), commands: attempt },
  maxConnectionsPerActor: { accepted: 'every actor may open several connections; one sends commands at a time unless connectionProfile is multi-producer' },
  // outputs
  out: { flag: '--out', kind: kinds.string, commands: file },
  force: { flag: '--force', kind: kinds.bool, commands: file },
  // search (run)
  maxRuns: { flag: '--max-runs', kind: kinds.int, commands: ['run'] },
  totalTimeoutMs: { flag: '--max-time', kind: kinds.ms, commands: ['run', 'minimize'] },
  strategy: { flag: '--strategy', kind: oneOf({ fifo: 'fifo', seeded: 'random', dfs: 'dfs', random: 'random', pct: 'pct' }), commands: ['run'] },
  seed: { flag: '--seed', kind: kinds.int, commands: ['run'] },
  depth: { flag: '--depth', kind: kinds.int, commands: ['run'] },
  maxDepth: { flag: '--max-depth', kind: kinds.int, commands: ['run'] },
  stopOnFailure: { flag: '--keep-going', inverted: true, kind: kinds.bool, commands: ['run'] },
  keepGoing: { flag: '--keep-going', kind: kinds.bool, commands: ['run'] },
  plan: { flag: '--plan', kind: kinds.plan, commands: ['run'] },
  overlap: { flag: '--overlap', kind: oneOf({ pairs: 'pairs' }), commands: ['run'] },
  reduction: { flag: '--reduction', kind: oneOf({ por: 'por', none: 'none' }), commands: ['run'] },
  reductionCheck: { flag: '--reduction-check', kind: kinds.int, commands: ['run'] },
  workers: { flag: '--workers', kind: kinds.int, commands: ['run'] },
  shard: { flag: '--shard', kind: kinds.string, commands: ['run'] },
  summary: { flag: '--summary', kind: kinds.string, commands: ['run'] },
  maxSearchBytes: { flag: '--frontier-bytes', kind: kinds.int, commands: ['run'] },
  // replay and minimize
  guided: { flag: '--guided', kind: kinds.bool, commands: ['replay'] },
  mode: { flag: '--guided', kind: { ...oneOf({ replay: false, guided: true }), write: undefined }, commands: ['replay'], boolOf: (v) => v === 'guided' },
  repeat: { flag: '--repeat', kind: kinds.int, commands: ['replay'] },
  maxAttempts: { flag: '--max-attempts', kind: kinds.int, commands: ['minimize'] },
  // report
  replayCommand: { flag: '--replay-command', kind: kinds.string, commands: ['report'] },
  // the original's options with no counterpart
  maxSteps: { none: 'an attempt has no command limit here; it is bounded by timeoutMs' },
  maxEvidenceBytes: { none: "use capture: 'failures' | 'all' | 'off' to choose which attempts keep their wire capture" },
  maxCandidates: { none: 'use maxSearchBytes to bound the memory of pending orders' },
  fixtureProfile: { none: 'the database after setup is always fingerprinted (schema, data, sequences, settings)' },
  source: { none: 'the files an exact replay checks are found for you (the module graph, package.json and the lockfile)' },
  overwrite: { none: 'use force: true' },
};

/** Options of the API itself, not passed to the binary. */
export const ownOptions = new Set(['signal', 'binary', 'cwd', 'env']);

/**
 * flagsFor turns options into the flags of command, or throws a TypeError
 * naming the option that is unknown, refused, malformed or not taken by
 * the function called (fn, for the message).
 */
export function flagsFor(command, fn, options = {}) {
  if (options === null || typeof options !== 'object') throw new TypeError(`${fn}() options must be an object`);
  const flags = [];
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined || ownOptions.has(name)) continue;
    const o = apiOptions[name];
    if (!o) throw new TypeError(`${fn}() has no option ${JSON.stringify(name)}; the options are listed in docs/migrating.md`);
    if (o.none) throw new TypeError(`${fn}() option ${name} has no counterpart in Interleave for Go: ${o.none}; remove it`);
    if (o.accepted) continue;
    if (!o.commands.includes(command)) throw new TypeError(`${fn}() does not take option ${name}`);
    if (!o.kind.check(value)) throw new TypeError(`${fn}() option ${name} must be ${o.kind.want} (got ${JSON.stringify(value)})`);
    if (o.kind === kinds.bool || o.boolOf) {
      const on = o.boolOf ? o.boolOf(value) : value;
      if (on !== Boolean(o.inverted)) flags.push(o.flag);
      continue;
    }
    flags.push(o.flag, o.kind.write(value));
  }
  return flags;
}

/**
 * optionNames rewrites the flags a message of the binary names ("pass
 * --force to overwrite it") as the options that give them ("pass force
 * (--force) ..."), for errors the JavaScript API passes on.
 */
export function optionNames(message) {
  return message.replace(/--[a-z][a-z-]*/g, (flag) => {
    const name = Object.keys(apiOptions).find((k) => apiOptions[k].flag === flag && !apiOptions[k].inverted);
    return name ? `${name} (${flag})` : flag;
  });
}
