package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/cmd/cli"
	"github.com/pginterleave/interleave/internal/testkit/fixture"
)

// An incompatible exact replay advises what matches the difference: a
// server of another version is not "changed code" (the advice was --guided
// "against the changed code" whatever differed). The counter is recorded
// and replayed on a real throwaway PostgreSQL; the recording's fingerprint
// is then altered the way another server, other settings or other code
// would have recorded it.
func TestIncompatibleReplayAdviceMatchesTheDifference(t *testing.T) {
	ctx := fixture.Context(t)
	// The fingerprinted source is a file of the test's own, not this
	// package's directory, which may change while the test runs.
	var o interleave.Options
	o.Source.Root = t.TempDir()
	o.Source.Files = []string{filepath.Join(o.Source.Root, "scenario.go")}
	if err := os.WriteFile(o.Source.Files[0], []byte("package scenario\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := interleave.Explore(ctx, fixture.Counter(false), o)
	if err != nil || res.Outcome != interleave.OutcomeViolation || res.Artifact.Fingerprint == nil {
		t.Fatalf("record the counter: %v %+v", err, res)
	}
	here := res.Artifact.Fingerprint.ServerVersion
	if !strings.HasPrefix(here, "PostgreSQL ") {
		t.Fatalf("the recording's server version is %q", here)
	}
	for _, tc := range []struct {
		name     string
		alter    func(fp *artifact.Fingerprint)
		want     []string
		wantNot  string
		isServer bool
	}{
		{"another server version", func(fp *artifact.Fingerprint) {
			fp.ServerVersion = "PostgreSQL 11.22 on x86_64-pc-linux-gnu, compiled by gcc 8.3.0, 64-bit"
		}, []string{"The recording was made on PostgreSQL 11.22, and this server is PostgreSQL " + strings.Fields(here)[1] + ":",
			"replay against a server of the recording's version and build (--pg-bin DIR of its binaries, or --database-url)",
			"follow the recorded order on this server with --guided, or record again on this one."}, "changed code", true},
		{"another build of the same version", func(fp *artifact.Fingerprint) {
			fp.ServerVersion = strings.SplitN(here, ",", 2)[0] + ", compiled by a compiler of another day, 64-bit"
		}, []string{"The recording was made on another build of the server", "--pg-bin DIR"}, "changed code", true},
		{"other settings", func(fp *artifact.Fingerprint) {
			fp.Settings = map[string]string{"default_transaction_isolation": "serializable"}
		}, []string{"Only the server's settings differ from the recording's", "--guided"}, "changed code", true},
		{"changed code", func(fp *artifact.Fingerprint) {
			fp.Sources = append([]artifact.SourceFile(nil), fp.Sources...)
			fp.Sources[0].SHA256 = strings.Repeat("0", 64)
		}, []string{"Run the replay with --guided to follow the recorded order against the changed code, or record again."}, "this server", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := *res.Artifact
			fp := *rec.Fingerprint
			tc.alter(&fp)
			rec.Fingerprint = &fp
			r, err := interleave.Replay(ctx, fixture.Counter(false), &rec, interleave.ReplayOptions{Options: o})
			if err != nil {
				t.Fatal(err)
			}
			if r.Outcome != interleave.OutcomeIncompatible || r.ExitCode() != 3 {
				t.Fatalf("replay: %s (exit %d) %v; want incompatible (exit 3)", r.Outcome, r.ExitCode(), r.Differences)
			}
			if (r.RecordedServer != "") != tc.isServer {
				t.Fatalf("RecordedServer %q, Server %q; the server is the difference: %v; differences %q", r.RecordedServer, r.Server, tc.isServer, r.Differences)
			}
			var b strings.Builder
			cli.PrintReplay(&b, r)
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("the summary lacks %q:\n%s", w, b.String())
				}
			}
			if strings.Contains(b.String(), tc.wantNot) {
				t.Errorf("the summary says %q:\n%s", tc.wantNot, b.String())
			}
		})
	}
}
