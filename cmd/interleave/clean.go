package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/pginterleave/interleave/cmd/cli"
	"github.com/pginterleave/interleave/pgserver"
	"github.com/pginterleave/interleave/supervise"
	"github.com/spf13/cobra"
)

// cleanCommand removes what runs killed outright left behind: managed
// servers (stopped) and their directories, build directories, and with
// --database-url the interleave_<hex> databases on a dedicated server.
func cleanCommand() *cobra.Command {
	var databaseURL string
	var minAge time.Duration
	var dryRun, asJSON bool
	cmd := &cobra.Command{
		Use:   "clean [DIR...] [--database-url URL] [--dry-run]",
		Short: "Remove what runs killed outright left behind: servers, temporary directories, databases",
		Long: `clean removes what an Interleave run killed with kill -9 (or a crash) left behind.

Temporary directories (interleave-pg-*, interleave-build-* in the temporary
directory and /tmp) are removed, after stopping the PostgreSQL server still
running in one, only when their owner record says they are this user's, were
made on this host, and the process that made them is dead. With --database-url,
the interleave_<16 hex> databases on that server that carry Interleave's mark,
that no live run holds (an advisory lock) and that nobody is connected to are
dropped. In each DIR (default: the current directory), a proxy capture's
working file (.FILE.partial-*) that no process holds open any more and an
export's staging directory (.DIR.tmp-*) that lost its owner record and has
not changed for --min-age (at least a minute) are removed: what a kill -9 of
interleave proxy or export left. Read such a working file with interleave
trace first if you want its records. Nothing else is ever touched. See
docs/supervision.md.`,
		Example: `  interleave clean --dry-run
  interleave clean
  interleave clean --database-url postgres://me@db.test:5432/postgres --min-age 1h --json`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				args = []string{"."}
			}
			for _, d := range args {
				if st, err := os.Stat(d); err != nil || !st.IsDir() {
					return &cli.UsageError{Msg: fmt.Sprintf("clean looks for leftovers in directories; %s is not one", quoteArgs([]string{d})), Usage: cmd.UseLine()}
				}
			}
			if asJSON {
				return cleanJSON(cmd, args, databaseURL, minAge, dryRun)
			}
			out := cmd.OutOrStdout()
			verb := "removed"
			if dryRun {
				verb = "would remove"
			}
			failed := false
			res, err := supervise.Sweep(supervise.SweepOptions{MinAge: minAge, DryRun: dryRun})
			if err != nil {
				failed = true
				fmt.Fprintf(cmd.ErrOrStderr(), "interleave: %v\n", err)
			}
			for _, l := range res.Removed {
				fmt.Fprintf(out, "%s %s (its owner, pid %d, is gone)%s\n", verb, l.Path, l.Owner, stoppedNote(l.Stopped, dryRun))
			}
			for _, l := range res.Kept {
				fmt.Fprintf(out, "kept %s: %s\n", l.Path, l.Reason)
			}
			outputs, err := findOutputLeftovers(args, minAge)
			if err != nil {
				failed = true
				fmt.Fprintf(cmd.ErrOrStderr(), "interleave: %v\n", err)
			}
			removeOutputLeftovers(outputs, dryRun)
			swept := 0
			for _, l := range outputs {
				if l.reason != "" {
					fmt.Fprintf(out, "kept %s, %s: %s\n", l.path, l.what, l.reason)
					continue
				}
				swept++
				fmt.Fprintf(out, "%s %s, %s\n", verb, l.path, l.what)
			}
			dropped := 0
			if databaseURL != "" {
				dropped, err = cleanDatabases(cmd.Context(), out, databaseURL, minAge, dryRun)
				if err != nil {
					failed = true
					fmt.Fprintf(cmd.ErrOrStderr(), "interleave: %v\n", err)
				}
			}
			fmt.Fprintf(out, "%s %d leftover directories", verb, len(res.Removed))
			if swept > 0 {
				fmt.Fprintf(out, ", %d leftover outputs", swept)
			}
			if databaseURL != "" {
				fmt.Fprintf(out, " and %d databases", dropped)
			}
			fmt.Fprintln(out, ".")
			if failed {
				return exitCode(2)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&databaseURL, "database-url", "", "also drop leftover interleave_<hex> databases on this dedicated test server")
	cmd.Flags().DurationVar(&minAge, "min-age", 0, "keep leftovers younger than this")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "list what would be removed, remove nothing")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print what was removed and kept as JSON")
	return cmd
}

func cleanDatabases(ctx context.Context, out io.Writer, url string, minAge time.Duration, dryRun bool) (int, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	res, err := pgserver.SweepDatabases(ctx, url, pgserver.DatabaseSweepOptions{MinAge: minAge, DryRun: dryRun})
	if err != nil {
		return 0, err
	}
	verb := "dropped database"
	if dryRun {
		verb = "would drop database"
	}
	for _, d := range res.Dropped {
		fmt.Fprintf(out, "%s %s (created %s, no live run holds it)\n", verb, d.Name, d.Created.Format(time.RFC3339))
	}
	for _, d := range res.Kept {
		fmt.Fprintf(out, "kept database %s: %s\n", d.Name, d.Reason)
	}
	return len(res.Dropped), nil
}

func stoppedNote(pids []int, dryRun bool) string {
	if len(pids) == 0 {
		return ""
	}
	if dryRun {
		return fmt.Sprintf("; would stop pids %v still running in it", pids)
	}
	return fmt.Sprintf("; stopped pids %v that were still running in it", pids)
}
