package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/pginterleave/interleave"
	"github.com/spf13/cobra"
)

// postgresMajors are the PostgreSQL majors Interleave supports: CI runs the
// core tests on the oldest and the newest (scripts/test, scripts/pg-major)
// and the whole suite on the machine's own.
var postgresMajors = []int{13, 14, 15, 16, 17, 18}

// buildCommit is the commit when the linker was told it
// (-ldflags "-X main.buildCommit=$(git rev-parse HEAD)"): builds with
// -buildvcs=false, or from a git worktree, carry no vcs.revision.
var buildCommit string

// releaseVersion is the version a release build was given
// (-ldflags "-X main.releaseVersion=1.2.3", scripts/release): it replaces
// the version constant in what `interleave version` prints. Artifacts
// record the constant (package fingerprint).
var releaseVersion string

// modulePath is this module's path, as go.mod says.
const modulePath = "github.com/pginterleave/interleave"

// VersionJSON is what `interleave version --json` prints
// (docs/json/version.v1.schema.json).
type VersionJSON struct {
	SchemaVersion int `json:"schemaVersion"`
	// Version is Interleave's own version, the one artifacts record.
	Version string `json:"version"`
	// Module and ModuleVersion come from the binary's build information:
	// "(devel)" for a build from a checkout, a release or pseudo-version
	// for `go install ...@version`.
	Module        string `json:"module"`
	ModuleVersion string `json:"moduleVersion"`
	// Commit is vcs.revision; empty when the build carried no VCS
	// information (-buildvcs=false, or not built from a git checkout).
	Commit     string `json:"commit,omitempty"`
	CommitTime string `json:"commitTime,omitempty"`
	// Modified is vcs.modified: the checkout had uncommitted changes.
	Modified       bool   `json:"modified"`
	Go             string `json:"go"`
	OS             string `json:"os"`
	Arch           string `json:"arch"`
	PostgresMajors []int  `json:"postgresMajors"`
}

// buildVersion reads the running binary's build information.
func buildVersion() VersionJSON {
	v := VersionJSON{SchemaVersion: 1, Version: interleave.Version, Module: modulePath, ModuleVersion: "(unknown)",
		Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, PostgresMajors: postgresMajors}
	v.Commit = buildCommit
	if releaseVersion != "" {
		v.Version = releaseVersion
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if bi.Main.Path != "" {
		v.Module, v.ModuleVersion = bi.Main.Path, bi.Main.Version
	}
	// go install ...@vX.Y.Z: the release installed is the version, as a
	// release build's -X main.releaseVersion is.
	if r := moduleRelease(); releaseVersion == "" && r != "" {
		v.Version = strings.TrimPrefix(r, "v")
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.time":
			v.CommitTime = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// text is the human form, one fact a line.
func (v VersionJSON) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "interleave %s\n", v.Version)
	fmt.Fprintf(&b, "module:     %s %s\n", v.Module, v.ModuleVersion)
	switch {
	case v.Commit == "":
		fmt.Fprintln(&b, "commit:     unknown (built without VCS information: -buildvcs=false, a git worktree, or not a git checkout)")
	case v.CommitTime == "":
		fmt.Fprintf(&b, "commit:     %s\n", v.Commit)
	case v.Modified:
		fmt.Fprintf(&b, "commit:     %s (%s) with uncommitted changes\n", v.Commit, v.CommitTime)
	default:
		fmt.Fprintf(&b, "commit:     %s (%s)\n", v.Commit, v.CommitTime)
	}
	fmt.Fprintf(&b, "go:         %s %s/%s\n", v.Go, v.OS, v.Arch)
	fmt.Fprintf(&b, "PostgreSQL: majors %d to %d supported\n", v.PostgresMajors[0], v.PostgresMajors[len(v.PostgresMajors)-1])
	return b.String()
}

// versionCommand is `interleave version [--json]`; the root command's
// --version prints the same text.
func versionCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "version [--json]",
		Short:   "Print Interleave's version, commit, Go version and the supported PostgreSQL majors",
		Example: "  interleave version\n  interleave --version\n  interleave version --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v := buildVersion()
			if asJSON {
				return writeJSONOut(cmd.OutOrStdout(), v)
			}
			fmt.Fprint(cmd.OutOrStdout(), v.text())
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the version as JSON")
	return cmd
}
