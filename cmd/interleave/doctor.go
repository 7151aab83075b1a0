package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/pgserver"
	"github.com/spf13/cobra"
)

// DoctorCheck is one thing doctor checked.
type DoctorCheck struct {
	Name   string `json:"name"`
	Status string `json:"status"` // ok, warn, fail or skip
	Detail string `json:"detail"`
	// Fix is one line that says what to do, for warn and fail.
	Fix string `json:"fix,omitempty"`
}

// DoctorJSON is what `interleave doctor --json` prints
// (docs/json/doctor.v1.schema.json).
type DoctorJSON struct {
	SchemaVersion int           `json:"schemaVersion"`
	OK            bool          `json:"ok"`
	ExitCode      int           `json:"exitCode"`
	Version       string        `json:"version"`
	Go            string        `json:"go"`
	OS            string        `json:"os"`
	Arch          string        `json:"arch"`
	Checks        []DoctorCheck `json:"checks"`
}

// doctorOptions are doctor's flags.
type doctorOptions struct {
	pgBin, databaseURL, upstreamCA, dockerImage string
	docker, upstreamTLS, asJSON                 bool
}

// doctor runs the checks in order, printing each as it finishes unless
// the result goes out as JSON at the end.
type doctor struct {
	out    io.Writer
	quiet  bool
	checks []DoctorCheck
}

func (d *doctor) add(c DoctorCheck) DoctorCheck {
	d.checks = append(d.checks, c)
	if !d.quiet {
		fmt.Fprintf(d.out, "%-5s %s: %s\n", strings.ToUpper(c.Status), c.Name, c.Detail)
		if c.Fix != "" {
			fmt.Fprintf(d.out, "      fix: %s\n", c.Fix)
		}
	}
	return c
}

func ok(name, format string, a ...any) DoctorCheck {
	return DoctorCheck{Name: name, Status: "ok", Detail: fmt.Sprintf(format, a...)}
}

func failed(name, fix, format string, a ...any) DoctorCheck {
	return DoctorCheck{Name: name, Status: "fail", Detail: oneLine(fmt.Sprintf(format, a...)), Fix: fix}
}

// oneLine joins the lines of a multi-line error (pgx lists each address it
// tried on its own line) with "; ".
func oneLine(s string) string {
	var parts []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, "; ")
}

func skipped(name, format string, a ...any) DoctorCheck {
	return DoctorCheck{Name: name, Status: "skip", Detail: fmt.Sprintf(format, a...)}
}

// doctorCommand checks what Interleave needs on this machine, with real
// parts: a server, a proxied connection, a lock wait PostgreSQL reports.
func doctorCommand() *cobra.Command {
	var o doctorOptions
	cmd := &cobra.Command{
		Use:   "doctor [--database-url URL] [--docker] [--upstream-tls] [--json]",
		Short: "Check that this machine can run Interleave: Go, PostgreSQL, a proxied round trip, lock-wait detection",
		Long: `doctor checks, with the parts a run uses, that Interleave works here:

  go                 the go command (interleave run DIR builds scenario programs)
  node               Node.js 20.6+ (JavaScript scenarios only; a warning when missing)
  postgres-binaries  initdb and postgres for the managed server, and where they came from
  server             a throwaway server starts (or --database-url connects, or --docker's engine answers)
  database           an interleave_<hex> database is created and dropped
  proxy-round-trip   a query sent through a proxy gated like an actor's completes
  lock-wait          one session blocks another, and PostgreSQL reports the wait to the
                     monitor through pg_isolation_test_session_is_blocked
  upstream-tls       (--upstream-tls) the proxy reaches the server over verified TLS
  cleanup            the server and its files are removed

Each failing check says what to do in one line. Exit 0 when nothing failed, 2 otherwise.`,
		Example: `  interleave doctor
  interleave doctor --database-url postgres://me@db.test:5432/postgres
  interleave doctor --upstream-tls
  interleave doctor --docker --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			d := &doctor{out: cmd.OutOrStdout(), quiet: o.asJSON}
			if !d.quiet {
				fmt.Fprintf(d.out, "interleave %s, built with %s on %s/%s\n", interleave.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 3*time.Minute)
			defer cancel()
			d.run(ctx, o)
			res := DoctorJSON{SchemaVersion: 1, OK: true, Version: interleave.Version, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, Checks: d.checks}
			for _, c := range d.checks {
				if c.Status == "fail" {
					res.OK, res.ExitCode = false, 2
				}
			}
			if o.asJSON {
				if err := writeJSONOut(d.out, res); err != nil {
					return err
				}
			} else if res.OK {
				fmt.Fprintln(d.out, "Everything Interleave needs works here.")
			} else {
				fmt.Fprintln(d.out, "Some checks failed: see the fix under each.")
			}
			if !res.OK {
				return exitCode(2)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.pgBin, "pg-bin", "", "directory with initdb and postgres")
	f.StringVar(&o.databaseURL, "database-url", "", "check a dedicated test server instead of the managed one (also TEST_DATABASE_URL)")
	f.BoolVar(&o.docker, "docker", false, "check that the Docker API answers (what run --docker needs) and use a container as the server")
	f.StringVar(&o.dockerImage, "docker-image", "postgres:16", "the image for --docker")
	f.BoolVar(&o.upstreamTLS, "upstream-tls", false, "check that the proxy reaches the server over TLS, verified in full")
	f.StringVar(&o.upstreamCA, "upstream-ca", "", "PEM file of the CA that signed the server's certificate (with --upstream-tls)")
	f.BoolVar(&o.asJSON, "json", false, "print the checks as JSON")
	return cmd
}

// run performs every check in order.
func (d *doctor) run(ctx context.Context, o doctorOptions) {
	d.add(checkGo())
	d.add(checkNode())
	if o.upstreamCA != "" && !o.upstreamTLS {
		d.add(failed("upstream-tls", "add --upstream-tls, or drop --upstream-ca", "--upstream-ca was given without --upstream-tls"))
		return
	}
	srv, cleanup := d.server(ctx, o)
	if srv == nil {
		for _, n := range []string{"database", "proxy-round-trip", "lock-wait"} {
			d.add(skipped(n, "no server to check against"))
		}
		return
	}
	d.serverChecks(ctx, srv, o.upstreamTLS)
	cleanup()
}

func checkGo() DoctorCheck {
	p, err := exec.LookPath("go")
	if err != nil {
		return failed("go", "install Go from https://go.dev/dl (scenario files and the demo run without it)", "the go command is not on PATH: interleave run DIR needs it to build scenario programs")
	}
	v, err := exec.Command(p, "version").Output()
	if err != nil {
		return failed("go", "check the Go installation at "+p, "%s version: %v", p, err)
	}
	return ok("go", "%s", strings.TrimSpace(string(v)))
}

func checkNode() DoctorCheck {
	p, err := exec.LookPath("node")
	if err != nil {
		return DoctorCheck{Name: "node", Status: "warn", Detail: "node is not on PATH: JavaScript scenarios (scenario.mjs) cannot run; Go and YAML scenarios can",
			Fix: "install Node.js 20.6 or newer (https://nodejs.org, or your package manager) if you run .mjs scenarios"}
	}
	v, err := exec.Command(p, "--version").Output()
	if err != nil {
		return DoctorCheck{Name: "node", Status: "warn", Detail: fmt.Sprintf("%s --version: %v", p, err), Fix: "reinstall Node.js 20.6 or newer"}
	}
	ver := strings.TrimSpace(string(v))
	var major, minor int
	fmt.Sscanf(ver, "v%d.%d", &major, &minor)
	if major < 20 || major == 20 && minor < 6 {
		return DoctorCheck{Name: "node", Status: "warn", Detail: fmt.Sprintf("Node.js %s at %s is older than 20.6 (module customization hooks): JavaScript scenarios cannot run", ver, p),
			Fix: "install Node.js 20.6 or newer"}
	}
	return ok("node", "Node.js %s at %s (JavaScript scenarios)", ver, p)
}

// doctorPostgres says which PostgreSQL the managed server will use, where it
// came from and what else is installed.
func doctorPostgres(pgBin string) (string, DoctorCheck) {
	dir, err := pgserver.FindBinDir(pgBin)
	if err != nil {
		return "", failed("postgres-binaries", howToGetPostgres(), "%v", err)
	}
	source := "--pg-bin"
	if pgBin == "" {
		source = "INTERLEAVE_PG_BIN"
		if os.Getenv("INTERLEAVE_PG_BIN") == "" {
			source = "found"
		}
	}
	var also []string
	for _, c := range pgserver.Candidates() {
		switch {
		case c.Dir == dir && source == "found":
			source = c.Source
		case c.Dir != dir:
			also = append(also, fmt.Sprintf("%s (%s)", c.Dir, c.Source))
		}
	}
	version := pgserver.ServerVersion(dir)
	if version == "" {
		version = "version unknown"
	}
	c := ok("postgres-binaries", "%s (%s; %s)", dir, version, source)
	if len(also) > 0 {
		c.Detail += "; also found: " + strings.Join(also, ", ")
	}
	return dir, c
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
