package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"time"

	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/pgserver"
	"github.com/spf13/cobra"
)

// doctorCommand checks what Interleave needs on this machine.
func doctorCommand() *cobra.Command {
	var pgBin string
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check that this machine can run Interleave (Go, PostgreSQL binaries, a throwaway server)",
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			ok := true
			fmt.Fprintf(out, "interleave %s, built with %s on %s/%s\n", interleave.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			if p, err := exec.LookPath("go"); err == nil {
				v, _ := exec.Command(p, "version").Output()
				fmt.Fprintf(out, "ok   go toolchain: %s", v)
			} else {
				ok = false
				fmt.Fprintln(out, "FAIL go toolchain not on PATH: `interleave run DIR` needs it to build scenario programs")
			}
			dir, ok2 := doctorPostgres(out, pgBin)
			if !ok2 {
				return exitCode(2)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			start := time.Now()
			srv, err := pgserver.StartLocal(ctx, pgserver.LocalOptions{BinDir: dir})
			if err != nil {
				fmt.Fprintf(out, "FAIL start a throwaway server: %v\n", err)
				return exitCode(2)
			}
			fmt.Fprintf(out, "ok   throwaway server: %s, started in %v", srv.Describe(), time.Since(start).Round(time.Millisecond))
			if os.Geteuid() == 0 {
				fmt.Fprint(out, " (running as root: the server ran as an unprivileged account)")
			}
			fmt.Fprintln(out)
			if err := srv.Close(); err != nil {
				ok = false
				fmt.Fprintf(out, "FAIL remove the throwaway server: %v\n", err)
			} else {
				fmt.Fprintln(out, "ok   throwaway server stopped and removed")
			}
			if !ok {
				return exitCode(2)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&pgBin, "pg-bin", "", "directory with initdb and postgres")
	return cmd
}

// doctorPostgres says which PostgreSQL the managed server will use, where it
// came from, what else is installed, and how to get one when there is none.
func doctorPostgres(out io.Writer, pgBin string) (string, bool) {
	dir, err := pgserver.FindBinDir(pgBin)
	if err != nil {
		fmt.Fprintf(out, "FAIL %v\n", err)
		fmt.Fprintf(out, "     to get one: %s\n", howToGetPostgres())
		return "", false
	}
	source := "--pg-bin"
	if pgBin == "" {
		source = "INTERLEAVE_PG_BIN"
		if os.Getenv("INTERLEAVE_PG_BIN") == "" {
			source = "found"
		}
	}
	others := pgserver.Candidates()
	for _, c := range others {
		if c.Dir == dir && source == "found" {
			source = c.Source
		}
	}
	version := pgserver.ServerVersion(dir)
	if version == "" {
		version = "version unknown"
	}
	fmt.Fprintf(out, "ok   PostgreSQL binaries: %s (%s; %s)\n", dir, version, source)
	for _, c := range others {
		if c.Dir != dir {
			fmt.Fprintf(out, "     also found: %s (%s)\n", c.Dir, c.Source)
		}
	}
	return dir, true
}

// howToGetPostgres is one line for this platform.
func howToGetPostgres() string {
	switch runtime.GOOS {
	case "darwin":
		return "`interleave postgres install` (no package manager needed), or `brew install postgresql@17`, or Postgres.app"
	case "windows":
		return "`interleave postgres install` (no installer needed), or the EDB installer (its bin directory is found under Program Files)"
	}
	if _, err := exec.LookPath("apt-get"); err == nil {
		return "`interleave postgres install` (no root needed), or `apt-get install postgresql`"
	}
	return "`interleave postgres install`, or your distribution's postgresql server package"
}
