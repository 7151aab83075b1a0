package jshost

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// PackageNames are the import specifiers that resolve to the shipped shim:
// the original tool's package and this project's own name for it.
var PackageNames = []string{"@pavangupta352/interleave", "@pginterleave/interleave"}

// DB is a direct (unproxied) connection to the attempt's database, as
// setup and the invariant receive it: connectionString, and the
// node-postgres configuration (host, port, user, password, database, ssl)
// their db client is opened with and connectionOptions returns.
type DB struct {
	ConnectionString string         `json:"connectionString"`
	Options          map[string]any `json:"options"`
}

// Result is one actor's outcome as the invariant sees it: Value (JSON, nil
// when the actor returned undefined) or Err.
type Result struct {
	Actor string
	Value json.RawMessage
	Err   error
}

// Description is what the host reports once it has loaded the scenario.
type Description struct {
	Name string `json:"name"`
	// Actors are the actor ids, sorted (the original tool's actor order).
	Actors []string `json:"actors"`
	// Modules are the file: URLs the scenario's module graph resolved while
	// it loaded, node_modules included.
	Modules []string `json:"modules"`
	// Node is the Node.js version (process.version).
	Node string `json:"node"`
}

type request struct {
	ID               uint64       `json:"id"`
	Op               string       `json:"op"`
	DB               *DB          `json:"db,omitempty"`
	Actor            string       `json:"actor,omitempty"`
	ConnectionString string       `json:"connectionString,omitempty"`
	Target           uint64       `json:"target,omitempty"`
	Results          []wireResult `json:"results,omitempty"`
}

type wireResult struct {
	Actor  string          `json:"actor"`
	Status string          `json:"status"`
	Value  json.RawMessage `json:"value,omitempty"`
	Error  *jsError        `json:"error,omitempty"`
}

type response struct {
	ID    uint64          `json:"id"`
	OK    bool            `json:"ok"`
	Value json.RawMessage `json:"value,omitempty"`
	Error *jsError        `json:"error,omitempty"`
	Hello *Description    `json:"hello,omitempty"`
}

// jsError is a thrown value as the host describes it.
type jsError struct {
	Kind    string `json:"kind,omitempty"`
	Name    string `json:"name"`
	Message string `json:"message"`
	Code    string `json:"code,omitempty"`
	Where   string `json:"where,omitempty"` // file:line of a syntax error
}

func wireResults(results []Result) []wireResult {
	out := make([]wireResult, len(results))
	for i, r := range results {
		w := wireResult{Actor: r.Actor, Status: "fulfilled", Value: r.Value}
		if r.Err != nil {
			w.Status, w.Value = "rejected", nil
			w.Error = &jsError{Name: "Error", Message: r.Err.Error()}
			var se *ScriptError
			if errors.As(r.Err, &se) {
				w.Error = &jsError{Name: se.Name, Message: se.Message, Code: se.Code}
			}
		}
		out[i] = w
	}
	return out
}

// ScriptError is something the scenario's own code threw: in setup, an
// actor or the invariant.
type ScriptError struct {
	// Op is "setup", "actor" or "invariant"; Actor names the actor.
	Op    string
	Actor string
	// Kind is "throw", "assertion" (node:assert in the invariant: a
	// violation) or "value" (an actor value JSON cannot hold).
	Kind          string
	Name, Message string
	// Code is the error's code property (a SQLSTATE for a node-postgres
	// error), if it had one.
	Code string
}

var sqlState = regexp.MustCompile(`^[0-9A-Z]{5}$`)

// Error is the message as a user reads it: the assertion's message; the
// error's name when it says more than "Error"; the SQLSTATE of a database
// error.
func (e *ScriptError) Error() string {
	switch e.Kind {
	case "assertion", "value":
		return e.Message
	}
	msg := e.Message
	if e.Name != "" && e.Name != "Error" && strings.HasSuffix(e.Name, "Error") {
		msg = e.Name + ": " + msg
	}
	if sqlState.MatchString(e.Code) {
		msg += fmt.Sprintf(" (SQLSTATE %s)", e.Code)
	}
	return msg
}

// Assertion reports whether the invariant failed a node:assert assertion.
func (e *ScriptError) Assertion() bool { return e.Kind == "assertion" }

// LoadError is a scenario module that could not be loaded or checked.
type LoadError struct {
	// Kind is "load" (the module threw or does not parse), "export" (no
	// default export), "pg-missing", "package-missing" or "node-version".
	Kind    string
	Message string
}

func (e *LoadError) Error() string { return e.Message }

// ExitError is a Node process that ended while it owed an answer.
type ExitError struct {
	File   string // the scenario file's name
	During string // what it was running: "setup", "actor alice", ...
	How    string // "exited with status 1", "was killed by signal killed"
	Output string // the tail of its stdout and stderr, passwords redacted
}

func (e *ExitError) Error() string {
	s := fmt.Sprintf("the Node process running %s %s while it ran %s", e.File, e.How, e.During)
	if e.Output != "" {
		s += "; its last output: " + e.Output
	}
	return s
}
