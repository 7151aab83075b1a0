package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/capture"
	"github.com/pginterleave/interleave/fingerprint"
	"github.com/pginterleave/interleave/sched"
	"github.com/pginterleave/interleave/search"
)

// recordAttempt turns one attempt into an artifact.
func (e *env) recordAttempt(sc *Scenario, mode string, r *attemptResult) *artifact.Artifact {
	names := sc.ActorNames()
	ref := func(u sched.UnitRef, hash uint64) artifact.UnitRef {
		return artifact.UnitRef{Actor: names[u.Actor], Conn: u.Conn, Unit: u.Unit, Hash: artifact.HashString(hash)}
	}
	hashes := map[sched.UnitRef]uint64{}
	if r.Sched != nil {
		for _, u := range r.Sched.Units {
			hashes[u.Ref] = u.Hash
		}
	}
	a := &artifact.Artifact{
		SchemaVersion: artifact.SchemaVersion,
		Tool:          artifact.Tool{Name: "interleave", Version: fingerprint.Version},
		CreatedAt:     time.Now().UTC().Truncate(time.Millisecond),
		Scenario:      artifact.Scenario{Name: sc.Name, Actors: names, Kind: e.programKind(), Program: e.programPath()},
		Mode:          mode,
		Outcome:       outcomeRecord(r.Outcome, r.Message),
		Environment:   e.environment(),
		Limits:        e.limits(),
		Schedule:      artifact.Schedule{Decisions: []artifact.Decision{}, Choices: []artifact.Choice{}},
		Units:         []artifact.Unit{},
		Connections:   []artifact.Connection{},
	}
	for _, v := range r.Victims {
		if v >= 0 && v < len(names) {
			a.Schedule.Victims = append(a.Schedule.Victims, names[v])
		}
	}
	secrets := attemptSecrets(e.secrets(), r)
	wire := wireRedactor{secrets}
	for _, ar := range r.Actors {
		rec := artifact.ActorResult{Actor: ar.Actor}
		if ar.Err != nil {
			rec.Error = ar.Err.Error()
		}
		if ar.Value != nil {
			rec.Value = keptValue(secrets, ar.Value)
		}
		a.Actors = append(a.Actors, rec)
	}
	a.Fingerprint = e.fingerprint()
	if r.Sched != nil {
		for _, l := range r.Sched.Lanes {
			cp := artifact.ConnPrint{Actor: names[l.Actor], Conn: l.Ordinal, Params: [][2]string{}}
			for i := 0; i+1 < len(l.Params); i += 2 {
				k, v := l.Params[i], l.Params[i+1]
				switch k {
				case "password":
					continue
				case "database":
					v = "(the attempt's database)" // a new name every run
				}
				cp.Params = append(cp.Params, [2]string{k, v})
			}
			// Drivers may send parameters in any order (pgx iterates a map):
			// the set is what must match.
			sort.Slice(cp.Params, func(i, j int) bool { return cp.Params[i][0] < cp.Params[j][0] })
			a.Fingerprint.Connections = append(a.Fingerprint.Connections, cp)
		}
	}
	if r.Capture != nil {
		masked, err := wire.capture(r.Capture)
		var c *artifact.Capture
		var cut string
		if err == nil {
			c, cut, err = artifact.EncodeCapture(masked)
		}
		switch {
		case err != nil:
			a.Cut = append(a.Cut, fmt.Sprintf("the wire capture was not kept: %v", err))
		case cut != "":
			a.Cut = append(a.Cut, cut)
		}
		a.Capture = c
	}
	if r.Sched == nil {
		return a
	}
	alternatives := map[sched.UnitRef][]artifact.UnitRef{}
	for _, d := range r.Sched.Decisions {
		ad := artifact.Decision{Step: d.Step, Choice: d.Choice, Release: []artifact.UnitRef{}, Candidates: []artifact.UnitRef{}}
		for _, u := range d.Released {
			ad.Release = append(ad.Release, ref(u, hashes[u]))
		}
		for _, c := range d.Candidates {
			ad.Candidates = append(ad.Candidates, ref(c.Ref, c.Hash))
		}
		for _, b := range d.Blocked {
			ad.Blocked = append(ad.Blocked, ref(b, hashes[b]))
		}
		for _, u := range d.Released {
			for _, c := range ad.Candidates {
				if c.Actor != names[u.Actor] || c.Conn != u.Conn || c.Unit != u.Unit {
					alternatives[u] = append(alternatives[u], c)
				}
			}
		}
		a.Schedule.Decisions = append(a.Schedule.Decisions, ad)
		if d.Choice {
			a.Schedule.Choices = append(a.Schedule.Choices, artifact.Choice{Step: d.Step, Release: ad.Release})
		}
	}
	conns := map[[2]int]*capture.Statements{}
	for _, u := range r.Sched.Units {
		k := [2]int{u.Ref.Actor, u.Ref.Conn}
		if conns[k] == nil {
			conns[k] = capture.NewStatements()
		}
		d := conns[k].Unit(wire.unit(u.Bytes))
		sqls, params := d.SQL, d.Params
		au := artifact.Unit{
			Actor: names[u.Ref.Actor], Conn: u.Ref.Conn, Unit: u.Ref.Unit,
			Protocol: u.Kind.String(), Messages: u.Types, SQL: sqls, Params: params,
			Hash: artifact.HashString(u.Hash), Prepare: u.Prepare, BackendPID: u.BackendPID,
			PendingStep: u.PendingStep, ReleaseStep: u.ReleaseStep, Pair: u.Pair,
			Alternatives: alternatives[u.Ref],
			PendingUS:    u.PendingAt.Microseconds(), ReleasedUS: u.ReleasedAt.Microseconds(), CompletedUS: u.CompletedAt.Microseconds(),
			Completed: u.Completed, Tags: u.Tags, Rows: u.Rows, SQLState: u.SQLState, Error: wire.text(u.Error),
		}
		if au.SQL == nil {
			au.SQL = []string{}
		}
		if u.TxStatus != 0 {
			au.TxStatus = string(rune(u.TxStatus))
		}
		switch u.Copy {
		case 'G':
			au.Copy = "in"
		case 'H':
			au.Copy = "out"
		}
		for _, w := range u.LockWaits {
			lw := artifact.LockWait{Step: w.Step, AtUS: w.At.Microseconds(), BlockingPIDs: w.PIDs, BlockingActors: []string{}}
			for _, b := range w.Blockers {
				lw.BlockingActors = append(lw.BlockingActors, names[b])
			}
			au.LockWaits = append(au.LockWaits, lw)
		}
		a.Units = append(a.Units, au)
	}
	for _, l := range r.Sched.Lanes {
		c := artifact.Connection{Actor: names[l.Actor], Conn: l.Ordinal, Stream: l.Stream, BackendPID: l.BackendPID, Error: wire.text(l.Error), Params: [][2]string{}}
		for i := 0; i+1 < len(l.Params); i += 2 {
			if l.Params[i] == "password" {
				continue
			}
			c.Params = append(c.Params, [2]string{l.Params[i], wire.text(l.Params[i+1])})
		}
		a.Connections = append(a.Connections, c)
	}
	for _, c := range r.Sched.Cancels {
		a.Cancels = append(a.Cancels, artifact.Cancel{Actor: names[c.Actor], PID: c.PID, Forwarded: c.Forwarded, AtUS: c.At.Microseconds()})
	}
	e.recordFaults(a, r)
	return a
}

func outcomeRecord(o Outcome, msg string) artifact.Outcome {
	rec := artifact.Outcome{Kind: string(o), Message: msg, ExitCode: o.ExitCode()}
	if o.Failed() {
		rec.FailureFingerprint = artifact.FailureFingerprint(string(o), msg)
	}
	return rec
}

func (e *env) environment() artifact.Environment {
	return artifact.Environment{
		PostgresVersion:   e.server.Version(),
		Server:            e.server.Describe(),
		GoVersion:         runtime.Version(),
		InterleaveVersion: fingerprint.Version,
		OS:                runtime.GOOS,
		Arch:              runtime.GOARCH,
	}
}

func (e *env) limits() artifact.Limits {
	o := e.opts
	return artifact.Limits{
		AttemptTimeoutMS: o.AttemptTimeout.Milliseconds(),
		MaxAttempts:      o.Search.MaxAttempts,
		MaxTimeMS:        o.Search.MaxTime.Milliseconds(),
		MaxDepth:         o.Search.MaxDepth,
		Connections:      o.Proxy.Connections.String(),
		ProtocolProfile:  o.Proxy.Protocol.String(),
		Overlap:          string(o.Search.Overlap),
	}
}

// programPath names the scenario program for a replay command: its package
// directory relative to its module's root ("./examples/counter"), or a
// scenario file's name.
func (e *env) programPath() string {
	o := e.opts.Source
	if o.ProgramDir == "" {
		if len(o.Files) > 0 {
			return filepath.Base(o.Files[0])
		}
		return ""
	}
	for d := o.ProgramDir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			if rel, err := filepath.Rel(d, o.ProgramDir); err == nil {
				return "./" + filepath.ToSlash(rel)
			}
			return ""
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// programKind says what defines the scenario: a Go program, a scenario file
// or an isolation-tester spec.
func (e *env) programKind() string {
	if src := e.opts.Source; src.ProgramDir == "" && len(src.Files) > 0 {
		if strings.HasSuffix(src.Files[0], ".spec") {
			return "spec"
		}
		return "file"
	}
	return "go"
}

// victimsOf reads a recording's deadlock-victim order as actor indices.
func victimsOf(rec *artifact.Artifact, names []string) []int {
	var out []int
	for _, v := range rec.Schedule.Victims {
		for i, n := range names {
			if n == v {
				out = append(out, i)
			}
		}
	}
	return out
}

// deadlocks lists, for each unit PostgreSQL aborted as a deadlock victim,
// its actor and the actors it waited on, and the last decision before.
func deadlocks(r *attemptResult) []search.Deadlock {
	if r.Sched == nil {
		return nil
	}
	released := map[sched.UnitRef]time.Duration{}
	for _, u := range r.Sched.Units {
		released[u.Ref] = u.ReleasedAt
	}
	var out []search.Deadlock
	for _, u := range r.Sched.Units {
		if u.SQLState != sched.SQLStateDeadlock {
			continue
		}
		d := []int{u.Ref.Actor}
		seen := map[int]bool{u.Ref.Actor: true}
		for _, lw := range u.LockWaits {
			for _, b := range lw.Blockers {
				if !seen[b] {
					seen[b] = true
					d = append(d, b)
				}
			}
		}
		if len(d) > 1 {
			step := -1
			for k, dec := range r.Sched.Decisions {
				if len(dec.Released) > 0 && released[dec.Released[0]] < u.CompletedAt {
					step = k
				}
			}
			out = append(out, search.Deadlock{Actors: d, Step: step})
		}
	}
	return out
}
