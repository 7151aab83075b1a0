package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/cmd/cli"
	"github.com/pginterleave/interleave/internal/termtext"
)

// Every command takes --json: its result as one JSON object on stdout, and
// when it cannot finish, ErrorJSON instead (the same object the scenario
// programs print). Each object carries schemaVersion; docs/json/ has a JSON
// Schema per output, which the tests validate real outputs against.

// ErrorJSON is what --json prints when a command fails
// (docs/json/error.v1.schema.json).
type ErrorJSON struct {
	SchemaVersion int    `json:"schemaVersion"`
	Error         string `json:"error"`
	ExitCode      int    `json:"exitCode"`
}

// writeJSONOut prints v indented, with a final newline. It is the one
// place the CLI writes JSON: strings quote artifacts, SQL, actors' output
// and the server, so C1 controls and bidirectional and other format
// characters leave escaped, as the text outputs print them as '?'
// (artifact.EscapeJSONText).
func writeJSONOut(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(artifact.EscapeJSONText(buf.Bytes()))
	return err
}

// jsonRequested reports whether args ask for --json before any "--": then an
// error the command returns is printed as ErrorJSON too, flag errors
// included.
func jsonRequested(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "--json", "-json", "--json=true", "-json=true":
			return true
		}
	}
	return false
}

// reportError prints err in one sentence on stderr, and as ErrorJSON on
// stdout when --json was asked for, and returns the exit code: 2.
func reportError(err error, args []string, stdout, stderr io.Writer) int {
	msg := cli.Flagged(strings.TrimSpace(err.Error()))
	if !strings.HasSuffix(msg, ".") && !strings.HasSuffix(msg, "?") {
		msg += "."
	}
	if jsonRequested(args) {
		_ = writeJSONOut(stdout, ErrorJSON{SchemaVersion: 1, Error: msg, ExitCode: 2})
	}
	// Errors quote artifacts, actors' output and the server: never let
	// them drive the terminal.
	fmt.Fprintf(stderr, "interleave: %s\n", termtext.Lines(msg))
	return 2
}
