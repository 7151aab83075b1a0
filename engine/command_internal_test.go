package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pginterleave/interleave/artifact"
)

// TestCommandOutputIsBoundedAndRedacted: a command actor's stdout is kept
// up to the limit (exec copies into a bytes.Buffer's ReadFrom, around a
// Write that counts: the buffer must not offer one), the cut says how much
// there was, and the password is removed from stdout and stderr in every
// form the connection string gives it.
func TestCommandOutputIsBoundedAndRedacted(t *testing.T) {
	ctx := context.Background()
	const cs = "postgres://u:p%40ss%2Fw0rd@127.0.0.1:1/db?sslmode=disable"
	v, err := runCommand(ctx, "bob", []string{"sh", "-c", `head -c 10000000 /dev/zero | tr '\0' x; echo "$PGPASSWORD"`}, CommandOptions{}, cs)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := v.(string)
	out, _ := json.Marshal(s)
	if len(out) > artifact.MaxActorValue || !strings.Contains(s, "xxx [cut: 10000010 bytes, over the limit of 1 MiB; the first ") || !strings.HasSuffix(s, " are kept]") {
		t.Fatalf("10 MB of stdout became %d bytes ending %q", len(out), s[max(0, len(s)-100):])
	}

	v, err = runCommand(ctx, "bob", []string{"sh", "-c", `printf '{"u": "%s", "p": "%s"}' "$DATABASE_URL" "$PGPASSWORD"`}, CommandOptions{}, cs)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := v.(json.RawMessage)
	if !json.Valid(raw) || strings.Contains(string(raw), "w0rd") || strings.Count(string(raw), "REDACTED") != 2 {
		t.Fatalf("JSON stdout became %s", raw)
	}

	_, err = runCommand(ctx, "bob", []string{"sh", "-c", `head -c 9000 /dev/zero; echo "$DATABASE_URL $PGPASSWORD" >&2; exit 3`}, CommandOptions{}, cs)
	if err == nil || strings.Contains(err.Error(), "w0rd") || !strings.Contains(err.Error(), "u:REDACTED@") {
		t.Fatalf("stderr: %v", err)
	}
}

// TestCommandWorkingDirectoryMissing: a missing cwd is named as such, not
// as a missing program.
func TestCommandWorkingDirectoryMissing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gone")
	_, err := runCommand(context.Background(), "bob", []string{"psql"}, CommandOptions{Dir: dir}, "postgres://u@127.0.0.1:1/db")
	if err == nil || err.Error() != "the working directory "+dir+" does not exist" {
		t.Fatalf("error %v", err)
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	if _, err := runCommand(context.Background(), "bob", []string{"psql"}, CommandOptions{Dir: file}, "postgres://u@127.0.0.1:1/db"); err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Fatalf("error %v", err)
	}
}
