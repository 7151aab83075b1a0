package main

import (
	"context"
	"fmt"
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
			dir, err := pgserver.FindBinDir(pgBin)
			if err != nil {
				fmt.Fprintf(out, "FAIL %v\n", err)
				return exitCode(2)
			}
			fmt.Fprintf(out, "ok   PostgreSQL binaries: %s\n", dir)
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
