package interleave

import (
	"context"
	"io"

	"github.com/pginterleave/interleave/export"
)

// ExportRegression packages the failure recorded at artifactPath, found by
// the scenario program in programDir, as an offline regression bundle in
// out: the artifact, the program's sources with its module vendored, a
// binary for this platform, a replay script, a README and a SHA-256
// manifest. The sources must be the recorded ones.
func ExportRegression(ctx context.Context, programDir, artifactPath, out string, force bool, log io.Writer) error {
	return export.Bundle(ctx, export.Options{ProgramDir: programDir, Artifact: artifactPath, Out: out, Force: force, Log: log})
}
