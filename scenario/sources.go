package scenario

import (
	"os"
	"path/filepath"
	"strings"
)

// lockfiles are fingerprinted when found beside a fingerprinted file.
var lockfiles = []string{"package-lock.json", "requirements.txt", "go.sum"}

// sourceFiles lists what an exact replay checks: the scenario file, its
// setup files, every command argument that names a file relative to the
// command's directory (the program: increment.js), and the lockfiles beside
// any of them. Paths are absolute; the list has no duplicates.
func sourceFiles(file string, c *fileConfig) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	add(file)
	for _, f := range c.setupFiles {
		add(f.path)
	}
	cmds := append([]command{}, c.setupCommands...)
	for _, a := range c.actors {
		cmds = append(cmds, a.cmd)
	}
	if c.invariantCommand != nil {
		cmds = append(cmds, *c.invariantCommand)
	}
	for _, cmd := range cmds {
		for _, arg := range cmd.argv {
			if p, ok := relativeFile(cmd.dir, arg); ok {
				add(p)
			}
		}
	}
	dirs := map[string]bool{}
	for _, p := range append([]string{}, out...) {
		d := filepath.Dir(p)
		if dirs[d] {
			continue
		}
		dirs[d] = true
		for _, name := range lockfiles {
			if isRegular(filepath.Join(d, name)) {
				add(filepath.Join(d, name))
			}
		}
	}
	return out
}

// relativeFile reports whether arg names a regular file relative to dir.
func relativeFile(dir, arg string) (string, bool) {
	if arg == "" || filepath.IsAbs(arg) || strings.HasPrefix(arg, "-") || strings.ContainsAny(arg, "\x00\n") || len(arg) > 4096 {
		return "", false
	}
	p := filepath.Join(dir, arg)
	return p, isRegular(p)
}

func isRegular(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
