package main

import (
	"context"
	"time"

	"github.com/pginterleave/interleave/pgserver"
	"github.com/pginterleave/interleave/supervise"
	"github.com/spf13/cobra"
)

// CleanJSON is what `interleave clean --json` prints
// (docs/json/clean.v1.schema.json).
type CleanJSON struct {
	SchemaVersion int              `json:"schemaVersion"`
	DryRun        bool             `json:"dryRun"`
	ExitCode      int              `json:"exitCode"`
	Removed       []CleanDirectory `json:"removed"`
	Kept          []CleanDirectory `json:"kept"`
	// Databases is set with --database-url.
	Databases *CleanDatabases `json:"databases,omitempty"`
	Errors    []string        `json:"errors,omitempty"`
}

// CleanDirectory is a leftover directory, removed (or that would be) or
// kept; or a leftover output (a proxy's partial capture, a bundle's staging
// directory), whose owner is 0.
type CleanDirectory struct {
	Path    string `json:"path"`
	Owner   int    `json:"owner"`             // the pid that made it
	Stopped []int  `json:"stopped,omitempty"` // server processes stopped in it
	Reason  string `json:"reason,omitempty"`  // why it was kept
}

// CleanDatabases are the leftover databases of a dedicated server.
type CleanDatabases struct {
	Dropped []CleanDatabase `json:"dropped"`
	Kept    []CleanDatabase `json:"kept"`
}

// CleanDatabase is one interleave_<hex> database.
type CleanDatabase struct {
	Name    string `json:"name"`
	Created string `json:"created,omitempty"` // RFC 3339, from Interleave's mark
	Reason  string `json:"reason,omitempty"`
}

// cleanJSON is clean with its result as one JSON object.
func cleanJSON(cmd *cobra.Command, dirs []string, databaseURL string, minAge time.Duration, dryRun bool) error {
	res := CleanJSON{SchemaVersion: 1, DryRun: dryRun, Removed: []CleanDirectory{}, Kept: []CleanDirectory{}}
	sw, err := supervise.Sweep(supervise.SweepOptions{MinAge: minAge, DryRun: dryRun})
	if err != nil {
		res.Errors = append(res.Errors, err.Error())
	}
	for _, l := range sw.Removed {
		res.Removed = append(res.Removed, CleanDirectory{Path: l.Path, Owner: l.Owner, Stopped: l.Stopped})
	}
	for _, l := range sw.Kept {
		res.Kept = append(res.Kept, CleanDirectory{Path: l.Path, Owner: l.Owner, Reason: l.Reason})
	}
	outputs, err := findOutputLeftovers(dirs, minAge)
	if err != nil {
		res.Errors = append(res.Errors, err.Error())
	}
	removeOutputLeftovers(outputs, dryRun)
	for _, l := range outputs {
		if l.reason != "" {
			res.Kept = append(res.Kept, CleanDirectory{Path: l.path, Reason: l.what + ": " + l.reason})
		} else {
			res.Removed = append(res.Removed, CleanDirectory{Path: l.path})
		}
	}
	if databaseURL != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		res.Databases = &CleanDatabases{Dropped: []CleanDatabase{}, Kept: []CleanDatabase{}}
		dbs, err := pgserver.SweepDatabases(ctx, databaseURL, pgserver.DatabaseSweepOptions{MinAge: minAge, DryRun: dryRun})
		if err != nil {
			res.Errors = append(res.Errors, err.Error())
		} else {
			for _, d := range dbs.Dropped {
				res.Databases.Dropped = append(res.Databases.Dropped, CleanDatabase{Name: d.Name, Created: rfc3339(d.Created)})
			}
			for _, d := range dbs.Kept {
				res.Databases.Kept = append(res.Databases.Kept, CleanDatabase{Name: d.Name, Created: rfc3339(d.Created), Reason: d.Reason})
			}
		}
	}
	if len(res.Errors) > 0 {
		res.ExitCode = 2
	}
	if err := writeJSONOut(cmd.OutOrStdout(), res); err != nil {
		return err
	}
	if res.ExitCode != 0 {
		return exitCode(res.ExitCode)
	}
	return nil
}

func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339)
}
