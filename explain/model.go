package explain

// SchemaVersion is the version of the Explanation JSON
// (docs/json/explain.schema.json).
const SchemaVersion = 1

// Kind is what a command does to its transaction.
type Kind string

const (
	KindBegin    Kind = "begin"
	KindCommit   Kind = "commit"
	KindRollback Kind = "rollback"
	KindDML      Kind = "dml"
	KindSession  Kind = "session"
	// KindGlobal: a command whose footprint is not known (DDL, functions
	// that may write, ...); it is left out of the graph and counted in
	// Explanation.Unknown.
	KindGlobal Kind = "global"
)

// Access is one relation a command read or wrote.
type Access struct {
	Relation string `json:"relation"`
	// Key is what the SQL names of the row: column = value pairs from the
	// WHERE clause or the inserted VALUES. Empty: the command may touch any
	// row of the relation (a predicate, a scan), and depends on every
	// access to it.
	Key map[string]string `json:"key,omitempty"`
	// Insert: the command inserts new rows (a phantom for a predicate read).
	Insert bool `json:"insert,omitempty"`
	// Locked: a write, or a read with FOR UPDATE/SHARE: under READ
	// COMMITTED it sees the latest committed row when it completes, not the
	// snapshot its statement started with.
	Locked bool `json:"locked,omitempty"`
	// Indirect: a relation the statement does not name as its target but
	// may write through a trigger, a rule or a foreign key's action. It
	// counts for reads that depend on it, not as an overwrite (a ww edge):
	// the footprint says it may be written, not which rows.
	Indirect bool `json:"indirect,omitempty"`
}

// Command is one executed release unit of the failing order.
type Command struct {
	// Step is the decision that released it (the failure order's step).
	Step  int    `json:"step"`
	Actor string `json:"actor"`
	Conn  int    `json:"conn"`
	Unit  int    `json:"unit"`
	SQL   string `json:"sql"`
	Kind  Kind   `json:"kind"`
	// Isolation is the level a BEGIN or SET TRANSACTION names.
	Isolation string   `json:"isolation,omitempty"`
	Reads     []Access `json:"reads,omitempty"`
	Writes    []Access `json:"writes,omitempty"`
	// Start and End are when it was released and completed, in
	// microseconds from the attempt's start: a command that waited on a
	// lock takes effect at End.
	Start int64 `json:"startUs"`
	End   int64 `json:"endUs"`
	// Prepared is when its statement was prepared (Parse, Describe) in a
	// unit of its own, and PreparedStep that unit's step (-1: none). A
	// REPEATABLE READ or SERIALIZABLE transaction takes its snapshot when
	// its first statement is prepared.
	Prepared     int64 `json:"preparedUs,omitempty"`
	PreparedStep int   `json:"preparedStep,omitempty"`
	// SQLState is PostgreSQL's error code when it failed.
	SQLState string `json:"sqlstate,omitempty"`
	// TxStatus is the session's transaction state after it: I, T or E.
	TxStatus string `json:"txStatus,omitempty"`
}

// Transaction is the commands one session ran between two idle states.
type Transaction struct {
	ID        string `json:"id"` // actor:n, from 1 per actor
	Actor     string `json:"actor"`
	Steps     []int  `json:"steps"`
	Committed bool   `json:"committed"`
	ReadOnly  bool   `json:"readOnly"`
	Isolation string `json:"isolation"`
	// commands of the transaction, in order (not in the JSON: Steps names them).
	cmds []*Command
}

// DepKind is a dependency between two committed transactions (Adya).
type DepKind string

const (
	// WW: the later transaction overwrote what the earlier one wrote.
	WW DepKind = "ww"
	// WR: the later transaction read what the earlier one committed.
	WR DepKind = "wr"
	// RW (anti-dependency): the earlier transaction read a version the
	// later one then replaced; it did not see the later one's write.
	RW DepKind = "rw"
)

// Edge is one dependency From -> To: From must come first in any serial
// order that explains what both saw.
type Edge struct {
	From     string  `json:"from"`
	To       string  `json:"to"`
	Kind     DepKind `json:"kind"`
	Relation string  `json:"relation"`
	// Key is the row when both commands name it ("id=1"); "" the relation.
	Key string `json:"key,omitempty"`
	// FromStep and ToStep are the dependent commands. For RW, ToStep is the
	// write, and CommitStep the writer's commit, which came after the read.
	FromStep   int `json:"fromStep"`
	ToStep     int `json:"toStep"`
	CommitStep int `json:"commitStep,omitempty"`
	// SnapshotStep: rw under REPEATABLE READ or SERIALIZABLE, the step at
	// which the reader's transaction took the snapshot it read from.
	SnapshotStep int  `json:"snapshotStep,omitempty"`
	Insert       bool `json:"insert,omitempty"`
	// Predicate: the read named no row (a scan or a predicate).
	Predicate bool `json:"predicate,omitempty"`
}

// Anomaly names a cycle.
type Anomaly struct {
	// Name is the engineers' name: lost update, write skew, read skew,
	// phantom, read-only anomaly, circular information flow; "" when
	// there is no cycle.
	Name string `json:"name"`
	// Adya is the phenomenon in Adya's terms: G0, G1c, G-single, G2-item,
	// G2; "" when there is no cycle.
	Adya string `json:"adya"`
	// Sentence says it in one sentence with the transactions and commands.
	Sentence string `json:"sentence"`
}

// Pair is the critical pair: two dependent commands of different actors
// whose reversal, everything else kept, makes the order pass.
type Pair struct {
	First       int    `json:"first"`  // the step that came first in the failing order
	Second      int    `json:"second"` // the step that came after
	FirstActor  string `json:"firstActor"`
	SecondActor string `json:"secondActor"`
	FirstSQL    string `json:"firstSql"`
	SecondSQL   string `json:"secondSql"`
	// Found: running the reversal passed. Tried lists every reversal run.
	Found bool    `json:"found"`
	Tried []Trial `json:"tried"`
}

// Trial is one reversal run.
type Trial struct {
	First   int    `json:"first"`
	Second  int    `json:"second"`
	Outcome string `json:"outcome"`
	Message string `json:"message,omitempty"`
}

// LevelRun is the failing order replayed with every actor's sessions at
// one isolation level (a start-up option; no code changed).
type LevelRun struct {
	Level   string `json:"level"` // repeatable read, serializable
	Outcome string `json:"outcome"`
	Message string `json:"message,omitempty"`
	// Errors are the commands that failed with a serialization failure
	// (40001) or a deadlock (40P01).
	Errors []LevelError `json:"errors,omitempty"`
	// Held: the invariant held after the run.
	Held bool `json:"held"`
}

// LevelError is one serialization failure or deadlock.
type LevelError struct {
	Actor    string `json:"actor"`
	Step     int    `json:"step"`
	SQL      string `json:"sql"`
	SQLState string `json:"sqlstate"`
	Message  string `json:"message,omitempty"`
}

// Fix classes.
const (
	FixRepeatableRead = "repeatable-read"
	FixSerializable   = "serializable"
	FixLocking        = "locking"
	// FixRetry: the failure is PostgreSQL aborting a transaction (40P01,
	// 40001) that the code did not retry.
	FixRetry   = "retry"
	FixUnknown = "unknown"
)

// Fix is the class of fix the level runs show.
type Fix struct {
	Class  string `json:"class"`
	Advice string `json:"advice"`
}

// Explanation is everything explain says about one failing order.
type Explanation struct {
	SchemaVersion int           `json:"schemaVersion"`
	Scenario      string        `json:"scenario"`
	Failure       string        `json:"failure"`
	Transactions  []Transaction `json:"transactions"`
	Edges         []Edge        `json:"edges"`
	// Cycle is the shortest dependency cycle, edge by edge; empty: none.
	Cycle   []Edge  `json:"cycle"`
	Anomaly Anomaly `json:"anomaly"`
	// Unknown counts commands whose footprint is not known (left out).
	Unknown      int        `json:"unknown,omitempty"`
	CriticalPair *Pair      `json:"criticalPair,omitempty"`
	Levels       []LevelRun `json:"levels,omitempty"`
	Fix          *Fix       `json:"fix,omitempty"`
	// Notes say what could not be done, one sentence each.
	Notes []string `json:"notes,omitempty"`
}
