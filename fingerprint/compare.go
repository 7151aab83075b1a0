package fingerprint

import (
	"fmt"
	"regexp"
	"sort"

	"github.com/pginterleave/interleave/artifact"
)

// ProgramDifferences lists, in words, what changed in the program and tools
// since the recording. They are checked before a server starts.
func ProgramDifferences(rec, now *artifact.Fingerprint) []string {
	var d []string
	if rec == nil {
		return []string{"the artifact carries no fingerprint, so an exact replay cannot check it"}
	}
	d = append(d, fileDifferences("source file", rec.Sources, now.Sources)...)
	d = append(d, fileDifferences("module file", rec.Modules, now.Modules)...)
	if rec.GoVersion != now.GoVersion {
		d = append(d, fmt.Sprintf("Go version %s, recorded with %s", now.GoVersion, rec.GoVersion))
	}
	if rec.Interleave != now.Interleave {
		d = append(d, fmt.Sprintf("Interleave version %s, recorded with %s", now.Interleave, rec.Interleave))
	}
	if rec.Runtime != now.Runtime {
		d = append(d, fmt.Sprintf("runtime %q, recorded with %q", now.Runtime, rec.Runtime))
	}
	if rec.Profiles != now.Profiles {
		d = append(d, fmt.Sprintf("profiles %q, recorded with %q", now.Profiles, rec.Profiles))
	}
	if rec.UpstreamTLS != now.UpstreamTLS {
		d = append(d, fmt.Sprintf("upstream TLS %v, recorded with %v", now.UpstreamTLS, rec.UpstreamTLS))
	}
	return d
}

func fileDifferences(what string, rec, now []artifact.SourceFile) []string {
	var d []string
	byPath := map[string]artifact.SourceFile{}
	for _, f := range now {
		byPath[f.Path] = f
	}
	for _, r := range rec {
		n, ok := byPath[r.Path]
		switch {
		case !ok:
			d = append(d, fmt.Sprintf("%s %s was removed", what, r.Path))
		case n.SHA256 != r.SHA256:
			d = append(d, fmt.Sprintf("%s %s changed (%d bytes, sha256 %.12s; recorded %d bytes, sha256 %.12s)", what, r.Path, n.Size, n.SHA256, r.Size, r.SHA256))
		}
		delete(byPath, r.Path)
	}
	var added []string
	for p := range byPath {
		added = append(added, p)
	}
	sort.Strings(added)
	for _, p := range added {
		d = append(d, fmt.Sprintf("%s %s was added", what, p))
	}
	return d
}

// ServerDifferences compares the server version and behaviour settings.
func ServerDifferences(rec, now *artifact.Fingerprint) []string {
	var d []string
	if rec.ServerVersion != now.ServerVersion {
		d = append(d, fmt.Sprintf("PostgreSQL server %q, recorded with %q", now.ServerVersion, rec.ServerVersion))
	}
	d = append(d, mapDifferences("setting", rec.Settings, now.Settings)...)
	return d
}

// DatabaseDifferences compares the database after setup: "fixture
// differences".
func DatabaseDifferences(rec, now *artifact.DatabasePrint) []string {
	if rec == nil || now == nil || rec.Hash == now.Hash {
		return nil
	}
	var d []string
	for _, x := range mapDifferences("part", rec.Parts, now.Parts) {
		d = append(d, "fixture difference after setup: "+x)
	}
	if len(d) == 0 {
		d = append(d, "fixture difference after setup: the database fingerprint changed")
	}
	return d
}

func mapDifferences(what string, rec, now map[string]string) []string {
	var keys []string
	seen := map[string]bool{}
	for k := range rec {
		keys = append(keys, k)
		seen[k] = true
	}
	for k := range now {
		if !seen[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var d []string
	for _, k := range keys {
		r, rok := rec[k]
		n, nok := now[k]
		switch {
		case !nok:
			d = append(d, fmt.Sprintf("%s %s is gone (recorded: %s)", what, k, r))
		case !rok:
			d = append(d, fmt.Sprintf("%s %s is new (%s)", what, k, n))
		case r != n:
			d = append(d, fmt.Sprintf("%s %s is %s, recorded %s", what, k, n, r))
		}
	}
	return d
}

// ConnectionDifferences compares actor connections' start-up parameters.
func ConnectionDifferences(rec, now []artifact.ConnPrint) []string {
	key := func(c artifact.ConnPrint) string { return fmt.Sprintf("%s#%d", c.Actor, c.Conn) }
	recm := map[string]string{}
	for _, c := range rec {
		recm[key(c)] = fmt.Sprint(withoutOwnOptions(c.Params))
	}
	var d []string
	for _, c := range now {
		if r, ok := recm[key(c)]; ok && r != fmt.Sprint(withoutOwnOptions(c.Params)) {
			d = append(d, fmt.Sprintf("connection %s start-up parameters %v, recorded %s", key(c), c.Params, r))
		}
	}
	return d
}

// ownOptions is the options parameter Interleave itself once put into
// actors' connection strings (the deadlock-victim order); its proxies add
// it to the start-up packet now, so a recording made before has it and a
// replay does not.
var ownOptions = regexp.MustCompile(`^-c deadlock_timeout=[0-9]+ms$`)

func withoutOwnOptions(params [][2]string) [][2]string {
	out := make([][2]string, 0, len(params))
	for _, p := range params {
		if p[0] == "options" && ownOptions.MatchString(p[1]) {
			continue
		}
		out = append(out, p)
	}
	return out
}
