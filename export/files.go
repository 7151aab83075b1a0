package export

import (
	"fmt"
	"runtime"

	"github.com/pginterleave/interleave/artifact"
)

// unameArch and unameOS map GOARCH and GOOS to what `uname -m` and
// `uname -s` print.
var (
	unameArch = map[string]string{"amd64": "x86_64", "arm64": "aarch64", "386": "i686", "arm": "armv7l"}
	unameOS   = map[string]string{"linux": "Linux", "darwin": "Darwin", "freebsd": "FreeBSD"}
)

func replayScript(progRel string) string {
	platform := unameOS[runtime.GOOS] + "-" + unameArch[runtime.GOARCH]
	return fmt.Sprintf(`#!/bin/sh
# Replays the recorded failure in artifact.json, offline: the scenario
# program's sources and their dependencies are in src/ (vendored), a binary
# for %[2]s is in bin/. Exit codes: 1 the failure reproduced, 0 it did not,
# 3 the recording no longer applies (see the list it prints), 2 an error.
# Arguments are passed to the replay (for example --guided).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
export GOFLAGS=-mod=vendor GOPROXY=off GOTOOLCHAIN=local GOWORK=off
export INTERLEAVE_PROGRAM_DIR="$here/src/%[1]s"
bin="$here/bin/scenario"
if [ "$(uname -s)-$(uname -m)" != "%[2]s" ]; then
	# Another platform: build from the bundled sources (no network).
	mkdir -p "$here/.build"
	bin="$here/.build/scenario"
	(cd "$here/src" && go build -o "$bin" "./%[1]s")
fi
exec "$bin" replay "$here/artifact.json" "$@"
`, progRel, platform)
}

func readme(a *artifact.Artifact, progRel string) string {
	return fmt.Sprintf(`# Interleave regression bundle: %s

Outcome recorded: **%s**. %s

Replay it, offline (it needs Go and PostgreSQL's server binaries, as Interleave
does everywhere; nothing is downloaded):

    ./replay

The replay first checks that nothing changed since the recording (sources,
go.mod/go.sum, Go and Interleave versions, PostgreSQL version and settings,
the database after setup) and exits 3 with the list of differences if
something did; otherwise it runs the actors in the recorded order.

Check the bundle without running anything:

    interleave export --verify .

Contents: artifact.json (the recording), src/ (the scenario program, package
%s, with go.mod, go.sum and vendor/), bin/scenario (built with %s for %s/%s),
replay, %s (SHA-256 of every file).
`, a.Scenario.Name, a.Outcome.Kind, a.Outcome.Message, progRel, a.Environment.GoVersion, runtime.GOOS, runtime.GOARCH, ManifestName)
}
