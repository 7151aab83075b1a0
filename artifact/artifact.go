package artifact

import (
	"encoding/json"
	"time"

	"github.com/pginterleave/interleave/explain"
)

// SchemaVersion is the version this package writes. It reads this one and
// version 1, whose bind parameters were renderings (see Param).
const SchemaVersion = 2

// Artifact is one recorded attempt.
type Artifact struct {
	SchemaVersion int           `json:"schemaVersion"`
	Tool          Tool          `json:"tool"`
	CreatedAt     time.Time     `json:"createdAt"`
	Scenario      Scenario      `json:"scenario"`
	Mode          string        `json:"mode"` // explore, run, replay, guided-replay, minimize
	Outcome       Outcome       `json:"outcome"`
	Search        *Search       `json:"search,omitempty"`
	Replay        *Replay       `json:"replay,omitempty"`
	Minimize      *Minimize     `json:"minimize,omitempty"`
	Schedule      Schedule      `json:"schedule"`
	Units         []Unit        `json:"units"`
	Connections   []Connection  `json:"connections"`
	Cancels       []Cancel      `json:"cancels,omitempty"`
	Actors        []ActorResult `json:"actors"`
	Environment   Environment   `json:"environment"`
	Fingerprint   *Fingerprint  `json:"fingerprint,omitempty"`
	Limits        Limits        `json:"limits"`
	// Cut says what was cut or left out to keep within the documented
	// limits (docs/reliability.md), one sentence each.
	Cut     []string `json:"cut,omitempty"`
	Cleanup Cleanup  `json:"cleanup"`
	Capture *Capture `json:"capture,omitempty"`
	// Explanation is what the failure is, named from the order's
	// dependencies when the failure was saved (package explain); absent in
	// artifacts written before it existed and in passes.
	Explanation *explain.Record `json:"explanation,omitempty"`
}

// Tool names the writer.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Scenario identifies what ran.
type Scenario struct {
	Name    string   `json:"name"`
	Actors  []string `json:"actors"`
	Kind    string   `json:"kind"`              // go, file, spec
	Program string   `json:"program,omitempty"` // package directory or scenario file
}

// Outcome says how the attempt ended.
type Outcome struct {
	Kind    string `json:"kind"` // pass, violation, actor-error, harness-error, inconclusive, incompatible
	Message string `json:"message,omitempty"`
	// FailureFingerprint identifies "the same failure" for minimize and
	// replay: a hash of the kind and message.
	FailureFingerprint string `json:"failureFingerprint,omitempty"`
	ExitCode           int    `json:"exitCode"`
}

// Search records the search that found this attempt.
type Search struct {
	Strategy      string `json:"strategy"`
	Seed          int64  `json:"seed"`
	Attempt       int    `json:"attempt"` // dispatch sequence of this attempt, from 0
	Attempted     int    `json:"attempted"`
	Completed     int    `json:"completed"`
	Violations    int    `json:"violations"`
	Pending       int    `json:"pending"`
	MaxDepth      int    `json:"maxDepth"`
	StopReason    string `json:"stopReason"`
	ElapsedMillis int64  `json:"elapsedMillis"`
}

// Replay records how a replay followed its recording.
type Replay struct {
	Source   string `json:"source"` // the artifact replayed
	Guided   bool   `json:"guided"`
	Followed int    `json:"followed"` // recorded decisions followed
	Of       int    `json:"of"`
	Attempts int    `json:"attempts"`
}

// Minimize records a reduction.
type Minimize struct {
	Source         string `json:"source"`
	ChoicesBefore  int    `json:"choicesBefore"`
	ChoicesAfter   int    `json:"choicesAfter"`
	Attempts       int    `json:"attempts"`
	LocallyMinimal bool   `json:"locallyMinimal"`
	StopReason     string `json:"stopReason,omitempty"`
}

// UnitRef names a unit: actor, connection ordinal, unit ordinal and the
// hash of its bytes.
type UnitRef struct {
	Actor string `json:"actor"`
	Conn  int    `json:"conn"`
	Unit  int    `json:"unit"`
	Hash  string `json:"hash,omitempty"`
}

// Decision is one release.
type Decision struct {
	Step       int       `json:"step"`
	Release    []UnitRef `json:"release"`
	Candidates []UnitRef `json:"candidates"` // in default-policy order: the first is the default
	Choice     bool      `json:"choice"`
	Blocked    []UnitRef `json:"blocked,omitempty"`
	// Fault is the fault injected into the released unit (faults.go).
	Fault string `json:"fault,omitempty"`
}

// Choice is a decision that differs from the default policy.
type Choice struct {
	Step    int       `json:"step"`
	Release []UnitRef `json:"release"`
	Fault   string    `json:"fault,omitempty"`
}

// Schedule is the full decision list and its choices.
type Schedule struct {
	Decisions []Decision `json:"decisions"`
	Choices   []Choice   `json:"choices"`
	// Victims orders actors for deadlocks, the one PostgreSQL aborts first
	// first (each actor's connections get a deadlock_timeout by its place);
	// empty means actor order.
	Victims []string `json:"victims,omitempty"`
}

// Unit is one release unit and PostgreSQL's answer.
type Unit struct {
	Actor        string     `json:"actor"`
	Conn         int        `json:"conn"`
	Unit         int        `json:"unit"`
	Protocol     string     `json:"protocol"` // simple, extended, function, stage
	Messages     string     `json:"messages"` // client message types, e.g. "BES"
	SQL          []string   `json:"sql"`
	Params       [][]Param  `json:"params,omitempty"` // per Bind
	Hash         string     `json:"hash"`
	Prepare      bool       `json:"prepare,omitempty"`
	BackendPID   uint32     `json:"backendPid"`
	PendingStep  int        `json:"pendingStep"`
	ReleaseStep  int        `json:"releaseStep"` // -1: never released
	Pair         bool       `json:"pair,omitempty"`
	Alternatives []UnitRef  `json:"alternatives,omitempty"`
	PendingUS    int64      `json:"pendingUs"`
	ReleasedUS   int64      `json:"releasedUs,omitempty"`
	CompletedUS  int64      `json:"completedUs,omitempty"`
	Completed    bool       `json:"completed"`
	Tags         []string   `json:"tags,omitempty"`
	Rows         int        `json:"rows"`
	SQLState     string     `json:"sqlstate,omitempty"`
	Error        string     `json:"error,omitempty"`
	TxStatus     string     `json:"txStatus,omitempty"` // I, T, E
	Copy         string     `json:"copy,omitempty"`     // in, out
	LockWaits    []LockWait `json:"lockWaits,omitempty"`
	// Fault is the fault injected at the unit's release (faults.go).
	Fault string `json:"fault,omitempty"`
}

// LockWait is a lock wait PostgreSQL reported for a unit.
type LockWait struct {
	Step           int      `json:"step"`
	AtUS           int64    `json:"atUs"`
	BlockingActors []string `json:"blockingActors"`
	BlockingPIDs   []uint32 `json:"blockingPids"`
}

// Connection is one proxied connection (a lane).
type Connection struct {
	Actor      string      `json:"actor"`
	Conn       int         `json:"conn"`
	Stream     int         `json:"stream"`
	BackendPID uint32      `json:"backendPid"`
	Params     [][2]string `json:"params"` // start-up parameters (never a password)
	Error      string      `json:"error,omitempty"`
}

// Cancel is a CancelRequest an actor sent.
type Cancel struct {
	Actor     string `json:"actor"`
	PID       uint32 `json:"pid"`
	Forwarded bool   `json:"forwarded"`
	AtUS      int64  `json:"atUs"`
}

// ActorResult is what an actor returned.
type ActorResult struct {
	Actor string          `json:"actor"`
	Value json.RawMessage `json:"value,omitempty"`
	Error string          `json:"error,omitempty"`
}

// Environment is where the attempt ran.
type Environment struct {
	PostgresVersion   string `json:"postgresVersion"`
	Server            string `json:"server"`
	GoVersion         string `json:"goVersion"`
	InterleaveVersion string `json:"interleaveVersion"`
	OS                string `json:"os"`
	Arch              string `json:"arch"`
}

// Limits are the budgets and profiles in force.
type Limits struct {
	AttemptTimeoutMS int64  `json:"attemptTimeoutMs"`
	MaxAttempts      int    `json:"maxAttempts,omitempty"`
	MaxTimeMS        int64  `json:"maxTimeMs,omitempty"`
	MaxDepth         int    `json:"maxDepth,omitempty"`
	Connections      string `json:"connections"`
	ProtocolProfile  string `json:"protocolProfile"`
	Overlap          string `json:"overlap,omitempty"`
}

// Cleanup says what was removed after the run.
type Cleanup struct {
	DatabasesDropped bool   `json:"databasesDropped"`
	ServerStopped    bool   `json:"serverStopped"`
	Error            string `json:"error,omitempty"`
}

// Fingerprint is everything exact replay checks before running any SQL.
type Fingerprint struct {
	Sources       []SourceFile      `json:"sources,omitempty"`
	Modules       []SourceFile      `json:"modules,omitempty"` // go.mod, go.sum, lockfiles
	GoVersion     string            `json:"goVersion"`
	Interleave    string            `json:"interleaveVersion"`
	Runtime       string            `json:"runtime,omitempty"` // a scenario's own runtime ("Node.js v20.20.2")
	ServerVersion string            `json:"serverVersion"`
	Settings      map[string]string `json:"settings,omitempty"`
	Database      *DatabasePrint    `json:"database,omitempty"`
	Connections   []ConnPrint       `json:"connections,omitempty"`
	UpstreamTLS   bool              `json:"upstreamTls"`
	Profiles      string            `json:"profiles"`
	// Faults names the fault kinds the search injected ("lost-reply,reset"),
	// or a replay's schedule holds; empty when none. Informational: a
	// replay follows the recorded faults whatever it is given.
	Faults string `json:"faults,omitempty"`
}

// SourceFile is a file's identity, never its contents.
type SourceFile struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// DatabasePrint fingerprints the database after setup.
type DatabasePrint struct {
	Hash    string            `json:"hash"`
	Objects map[string]int    `json:"objects"` // counts by kind: tables, rows, sequences, ...
	Parts   map[string]string `json:"parts"`   // hash per part, to say what changed
}

// ConnPrint is an actor connection's start-up parameters.
type ConnPrint struct {
	Actor  string      `json:"actor"`
	Conn   int         `json:"conn"`
	Params [][2]string `json:"params"`
}

// Capture is the byte-exact wire record, compressed.
type Capture struct {
	Encoding string `json:"encoding"` // "zstd+base64"
	SHA256   string `json:"sha256"`   // of the uncompressed bytes
	Size     int    `json:"size"`     // uncompressed
	Data     string `json:"data"`
}

// Failed is true for the outcomes worth replaying as failures.
func (o Outcome) Failed() bool { return o.Kind == "violation" || o.Kind == "actor-error" }
