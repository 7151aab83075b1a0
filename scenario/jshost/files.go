package jshost

import (
	"embed"
	"net/url"
	"os"
	"path/filepath"
)

//go:embed js/*.mjs
var embedded embed.FS

// files are the host's modules written out for one Host.
type files struct {
	dir               string
	host              string // path of host.mjs
	shimURL, hooksURL string
}

// writeFiles writes the embedded modules to a new private directory.
func writeFiles() (*files, error) {
	dir, err := os.MkdirTemp("", "interleave-node-")
	if err != nil {
		return nil, err
	}
	// Every module: host.mjs, hooks.mjs, shim.mjs and the modules they import.
	entries, err := embedded.ReadDir("js")
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	for _, e := range entries {
		data, err := embedded.ReadFile("js/" + e.Name())
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, e.Name()), data, 0o600)
		}
		if err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	fileURL := func(name string) string {
		return (&url.URL{Scheme: "file", Path: filepath.Join(dir, name)}).String()
	}
	return &files{
		dir:      dir,
		host:     filepath.Join(dir, "host.mjs"),
		shimURL:  fileURL("shim.mjs"),
		hooksURL: fileURL("hooks.mjs"),
	}, nil
}
