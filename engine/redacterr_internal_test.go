package engine

import (
	"errors"
	"strings"
	"testing"

	"github.com/pginterleave/interleave/internal/redact"
)

// TestRedactErrorMasksTheLogTail: the end of a dying server's log, which
// quotes statements, keeps no secret and still unwraps to its cause.
func TestRedactErrorMasksTheLogTail(t *testing.T) {
	cause := errors.New("signal: killed")
	err := errors.Join(cause, errors.New(`the end of its log: STATEMENT:  ALTER ROLE app PASSWORD 'LogLiteral-9876'; token sk-Configured-1234`))
	got := redactError(redact.Password("pw-server-1").With("sk-Configured-1234"), err)
	for _, secret := range []string{"LogLiteral-9876", "sk-Configured-1234"} {
		if strings.Contains(got.Error(), secret) {
			t.Errorf("the error keeps %q: %s", secret, got)
		}
	}
	if !errors.Is(got, cause) {
		t.Errorf("the redacted error lost its cause")
	}
	if redactError(redact.Secrets{}, nil) != nil {
		t.Error("nil became an error")
	}
}
