package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/pginterleave/interleave/engine"
	"github.com/pginterleave/interleave/sched"
)

// faultsHelp names the fault kinds for --faults.
func faultsHelp() string {
	return "lost-reply (the command runs, its reply is lost with the connection), reset (the connection drops before the command reaches PostgreSQL), terminate (PostgreSQL terminates the backend: FATAL 57P01); known: " + strings.Join(sched.FaultNames(), ",")
}

// printFaults says, after a search that explored faults, how many attempts
// injected one, and which fault the failure has.
func printFaults(w io.Writer, r *engine.Result) {
	s := r.Summary
	if s == nil || s.FaultAttempts == 0 && (r.Artifact == nil || r.Artifact.Fingerprint == nil || r.Artifact.Fingerprint.Faults == "") {
		return
	}
	fmt.Fprintf(w, "Faults: %d of %d attempts injected a fault", s.FaultAttempts, s.Attempted)
	if r.Artifact != nil && r.Artifact.Fingerprint != nil && r.Artifact.Fingerprint.Faults != "" {
		fmt.Fprintf(w, " (%s)", r.Artifact.Fingerprint.Faults)
	}
	fmt.Fprintln(w, ".")
	if r.Artifact != nil && r.Outcome.Failed() {
		for _, u := range r.Artifact.Units {
			if u.Fault != "" {
				sql := ""
				if len(u.SQL) > 0 {
					sql = ": " + u.SQL[0]
				}
				fmt.Fprintf(w, "The failure has fault %s at %s's command %d on connection #%d%s\n", u.Fault, u.Actor, u.Unit, u.Conn, sql)
			}
		}
	}
}

// summarizeFaults fills the summary's fault counts.
func summarizeFaults(f *SummaryFile, r *engine.Result) {
	if r.Summary != nil {
		f.FaultAttempts = r.Summary.FaultAttempts
	}
	if a := r.Artifact; a != nil && a.Fingerprint != nil {
		f.Faults = a.Fingerprint.Faults
	}
}

// faultNote says what a fault did to a command, for the failing order.
func faultNote(f string) string {
	switch sched.Fault(f) {
	case sched.LostReply:
		return "FAULT lost-reply: it ran, its reply was lost with the connection"
	case sched.Reset:
		return "FAULT reset: the connection dropped before it reached PostgreSQL"
	case sched.Terminate:
		return "FAULT terminate: PostgreSQL terminated the backend (57P01)"
	}
	return "FAULT " + oneLine(f)
}

// mergeFaults adds a shard's fault counts to the merged summary.
func mergeFaults(t, f *SummaryFile) {
	t.FaultAttempts += f.FaultAttempts
	if t.Faults == "" {
		t.Faults = f.Faults
	}
}
