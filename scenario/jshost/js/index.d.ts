// Types of '@pginterleave/interleave' (shim.mjs and the modules it imports).
// The result objects are the binary's --json outputs; their JSON Schemas are
// in docs/json of github.com/pginterleave/interleave.

/** The part of node-postgres' Client these types rely on (the db of setup and the invariant is a pg Client). */
export interface PgClient {
  query(text: string, values?: unknown[]): Promise<{ rows: any[]; rowCount: number | null }>;
  end(): Promise<void>;
}

/** node-postgres connection settings: host, port, user, password, database, ssl. */
export interface PgClientConfig {
  host?: string;
  port?: number;
  user?: string;
  password?: string;
  database?: string;
  ssl?: unknown;
  [setting: string]: unknown;
}

export type Outcome = 'pass' | 'violation' | 'actor-error' | 'harness-error' | 'inconclusive' | 'incompatible';

export interface DatabaseContext {
  /** A connected node-postgres client straight to the attempt's database (not proxied). */
  db: PgClient;
  /** The attempt's database URL. */
  connectionString: string;
  /** A fresh node-postgres configuration on every read. */
  readonly connectionOptions: PgClientConfig;
}

export interface ActorContext {
  actor: string;
  /** The actor's own proxy. */
  connectionString: string;
  /** Fires at the attempt's deadline, on cancellation, and when the attempt ends. */
  signal: AbortSignal;
}

export interface ActorResult {
  actor: string;
  status: 'fulfilled' | 'rejected';
  value?: unknown;
  reason?: Error;
  error?: string;
}

export interface Scenario {
  name: string;
  setup(context: DatabaseContext): Promise<void> | void;
  actors: Record<string, (context: ActorContext) => Promise<unknown> | unknown>;
  /** A node:assert AssertionError is a violation; any other throw is a harness error. */
  invariant(context: DatabaseContext & { results: ActorResult[] & Record<string, ActorResult> }): Promise<void> | void;
}

/** Check a scenario as the original tool does and return it unchanged. */
export function defineScenario<S extends Scenario>(scenario: S): S;

export interface ProcessActorOptions {
  cwd?: string;
  env?: Record<string, string> | ((context: ActorContext) => Record<string, string>);
  output?: 'json' | 'ignore';
  maxOutputBytes?: number;
  killGraceMs?: number;
}

/** An actor that runs an external program against the actor's proxy (DATABASE_URL, PG*). */
export function processActor(command: string, args?: string[], options?: ProcessActorOptions): (context: ActorContext) => Promise<unknown>;

/** A scenario object in memory (runs in this process), or the path of a scenario file or Go scenario directory. */
export type Target = Scenario | string;

/** An artifact file's path, or an artifact object (readRunArtifact, parseRunArtifact). */
export type ArtifactInput = string | Artifact;

export interface CallOptions {
  /** Cancels the command: the binary gets SIGINT, cleans up and exits 130. */
  signal?: AbortSignal;
  /** The interleave binary (default: $INTERLEAVE_BINARY, this platform's package, PATH). */
  binary?: string;
  /** The binary's working directory. */
  cwd?: string;
  /** Environment added to this process's for the binary. */
  env?: Record<string, string>;
}

export interface ServerOptions {
  /** A dedicated test server (default: a managed throwaway PostgreSQL; also TEST_DATABASE_URL). */
  databaseUrl?: string;
  pgBin?: string;
  docker?: boolean;
  dockerImage?: string;
  upstreamTls?: boolean;
  upstreamCa?: string;
}

export interface AttemptOptions extends CallOptions, ServerOptions {
  /** Deadline of one attempt in milliseconds (default 30000). */
  timeoutMs?: number;
  connectionProfile?: 'single-producer' | 'multi-producer' | 'single-producer-v1' | 'multi-producer-v1';
  protocolProfile?: 'sync-cycle' | 'flush-stages' | 'sync-cycle-v1' | 'describe-flush-v1';
  maxMessageBytes?: number;
  capture?: 'failures' | 'all' | 'off';
  /** Accepted for the original's sake: actors may open several connections here. */
  maxConnectionsPerActor?: number;
  /** Write the artifact here. */
  out?: string;
  /** Replace out if it exists. */
  force?: boolean;
}

export interface ExploreOptions extends AttemptOptions {
  maxRuns?: number;
  totalTimeoutMs?: number;
  /** 'seeded' is the original's name for 'random'. */
  strategy?: 'fifo' | 'dfs' | 'random' | 'pct' | 'seeded';
  seed?: number;
  depth?: number;
  maxDepth?: number;
  /** false: continue after the first violation. */
  stopOnFailure?: boolean;
  keepGoing?: boolean;
  /** One attempt in this order: each id is that actor's next executing command. */
  plan?: string[];
  overlap?: 'pairs';
  reduction?: 'por' | 'none';
  reductionCheck?: number;
  workers?: number;
  /** 'K/N' */
  shard?: string;
  /** Also write the summary to this file (for interleave merge). */
  summary?: string;
  /** Memory budget for pending orders, in bytes. */
  maxSearchBytes?: number;
}

export interface ReplayOptions extends AttemptOptions {
  mode?: 'replay' | 'guided';
  guided?: boolean;
  repeat?: number;
}

export interface MinimizeOptions extends AttemptOptions {
  maxAttempts?: number;
  totalTimeoutMs?: number;
}

export interface ReportOptions extends CallOptions {
  replayCommand?: string;
}

export interface WriteReportOptions extends ReportOptions {
  force?: boolean;
}

export interface ExportOptions extends CallOptions {
  /** The bundle directory to create. */
  out: string;
  force?: boolean;
}

/** docs/json/summary.v1.schema.json */
export interface Summary {
  schemaVersion: 1;
  scenario: string;
  outcome: Outcome;
  exitCode: 0 | 1 | 2 | 3 | 4;
  message?: string;
  strategy: string;
  seed?: number;
  shard?: number;
  shards?: number;
  attempted: number;
  completed: number;
  violations: number;
  inconclusive: number;
  diverged: number;
  victimSequences?: number;
  reruns?: number;
  pending: number;
  prunedByDepth: number;
  prunedByBytes: number;
  maxDepth: number;
  stopReason: string;
  stopError?: string;
  exhausted: boolean;
  elapsedMillis: number;
  reduction: 'por' | 'none' | '';
  alternatives: number;
  skippedAsEquivalent: number;
  reductionCheck?: {
    lockCorrections: number;
    skipped: number;
    sampled: number;
    random: number;
    newBehaviours: number;
    unrepeatable: number;
    first?: string;
  };
  firstFailure?: {
    path: number[] | null;
    kind: Outcome;
    message: string;
    /** Where its artifact was saved (options.out). */
    artifact?: string;
    order?: { step: number; actor: string; conn?: number; sql: string; note?: string }[];
  };
}

/** docs/json/replay.v1.schema.json */
export interface ReplayResult {
  schemaVersion: 1;
  scenario: string;
  outcome: Outcome;
  exitCode: number;
  message?: string;
  guided: boolean;
  sameFailure: boolean;
  followed: number;
  of: number;
  commands: number;
  attempts: number;
  differences?: string[];
  artifact?: string;
}

/** docs/json/minimize.v1.schema.json */
export interface MinimizeResult {
  schemaVersion: 1;
  scenario: string;
  outcome: Outcome;
  exitCode: number;
  message?: string;
  choicesBefore: number;
  choicesAfter: number;
  attempts: number;
  locallyMinimal: boolean;
  stopReason?: string;
  differences?: string[];
  artifact?: string;
}

/** docs/json/report.v1.schema.json */
export interface ReportResult {
  schemaVersion: 1;
  artifact: string;
  out: string;
  bytes: number;
  scenario: string;
  outcome: Outcome;
  replayCommand: string;
}

/** docs/json/export.v1.schema.json */
export interface ExportResult {
  schemaVersion: 1;
  mode: 'bundle' | 'verify';
  bundle: string;
  ok: boolean;
  exitCode: 0 | 2;
  artifact?: string;
  replay?: string;
  problems?: string[];
}

/** An artifact (versions 1 and 2; the Go package artifact defines every field). */
export interface Artifact {
  schemaVersion: 1 | 2;
  tool: { name: string; version: string };
  createdAt: string;
  scenario: { name: string; actors: string[]; kind: string; program?: string };
  mode: string;
  outcome: { kind: Outcome; message?: string; failureFingerprint?: string; exitCode: number };
  schedule: { decisions: unknown[] | null; choices: unknown[] | null };
  units: unknown[] | null;
  connections: unknown[] | null;
  actors: unknown[] | null;
  environment: Record<string, unknown>;
  fingerprint?: Record<string, unknown>;
  limits: Record<string, unknown>;
  cleanup: Record<string, unknown>;
  [field: string]: unknown;
}

/** What every function rejects with when the binary cannot finish: its one sentence, and its exit code. */
export class InterleaveError extends Error {
  exitCode: number;
  /** The error object the binary printed (docs/json/error.v1). */
  output?: { schemaVersion: 1; error: string; exitCode: number };
}

export function explore(target: Target, options?: ExploreOptions): Promise<Summary>;
export function runOnce(target: Target, options?: ExploreOptions): Promise<Summary>;
export function runScenarioFile(file: string, options?: ExploreOptions): Promise<Summary>;
export function replay(target: Target, artifact: ArtifactInput, options?: ReplayOptions): Promise<ReplayResult>;
export function minimize(target: Target, artifact: ArtifactInput, options?: MinimizeOptions): Promise<MinimizeResult>;
export function renderReport(artifact: ArtifactInput, options?: ReportOptions): Promise<string>;
export function writeReport(file: string, artifact: ArtifactInput, options?: WriteReportOptions): Promise<ReportResult>;
export function exportRegression(scenarioFile: string, artifact: ArtifactInput, options: ExportOptions): Promise<ExportResult>;
export function verifyRegressionExport(bundle: string, options?: CallOptions): Promise<ExportResult>;
export function parseRunArtifact(input: string | object): Artifact;
export function readRunArtifact(file: string): Promise<Artifact>;
export function writeRunArtifact(file: string, artifact: Artifact | string, options?: { force?: boolean; overwrite?: boolean }): Promise<void>;
