package scenario

import (
	"net/url"
	"path/filepath"
	"slices"
	"strings"
)

// jsLockfiles are the package managers' lockfiles, looked for from the
// scenario's directory upwards (a workspace keeps one at its root).
var jsLockfiles = []string{"package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "yarn.lock", "bun.lock", "bun.lockb"}

// jsSourceFiles lists what an exact replay of a JavaScript scenario checks:
// the module; the local files its module graph resolved while it loaded
// (modules, as file: URLs, from Node; dependencies under node_modules are
// left to the lockfile); the nearest package.json; and the lockfiles of the
// nearest directory, from the module's upwards, that has one. Paths are
// absolute and unique.
func jsSourceFiles(module string, modules []string) []string {
	out := []string{module}
	add := func(p string) {
		if !slices.Contains(out, p) && isRegular(p) {
			out = append(out, p)
		}
	}
	for _, m := range modules {
		u, err := url.Parse(m)
		if err != nil || u.Scheme != "file" {
			continue
		}
		p := filepath.Clean(u.Path)
		if slices.Contains(strings.Split(filepath.ToSlash(p), "/"), "node_modules") {
			continue
		}
		add(p)
	}
	var pkg, locks bool
	for dir := filepath.Dir(module); ; dir = filepath.Dir(dir) {
		if !pkg && isRegular(filepath.Join(dir, "package.json")) {
			add(filepath.Join(dir, "package.json"))
			pkg = true
		}
		if !locks {
			for _, name := range jsLockfiles {
				if isRegular(filepath.Join(dir, name)) {
					add(filepath.Join(dir, name))
					locks = true
				}
			}
		}
		if (pkg && locks) || filepath.Dir(dir) == dir {
			break
		}
	}
	return out
}

// IsJSFile reports whether path names a JavaScript scenario module, by its
// extension (.mjs, or .js in a package of "type": "module"), for LoadJS.
func IsJSFile(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".mjs", ".js":
		return true
	}
	return false
}
