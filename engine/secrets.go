package engine

import (
	"encoding/json"
	"fmt"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/internal/redact"
)

// scrub makes an attempt's result fit to keep and print, once the
// invariant has judged it: the server's password (which every actor gets
// in its connection string and PGPASSWORD) is removed from the message and
// from every actor's error and value, and what is over the documented
// limits is cut, saying so. The failure fingerprint is then computed from
// the scrubbed message, so it does not depend on a password that changes
// from run to run.
func (w *worker) scrub(res *attemptResult) {
	s := redact.Password(w.env.server.Password())
	res.Message = artifact.CutText(s.String(res.Message), artifact.MaxText)
	for i := range res.Actors {
		r := &res.Actors[i]
		if r.Err != nil {
			if msg := artifact.CutText(s.String(r.Err.Error()), artifact.MaxText); msg != r.Err.Error() {
				r.Err = &scrubbedError{msg: msg, err: r.Err}
			}
		}
		if r.Value != nil {
			r.Value = json.RawMessage(artifact.CutValue(s.JSON(valueJSON(r.Value))))
		}
	}
}

// valueJSON is an actor's value as the artifact keeps it: its JSON, or its
// Go rendering as a JSON string when it has none.
func valueJSON(v any) []byte {
	if b, err := json.Marshal(v); err == nil {
		return b
	}
	b, _ := json.Marshal(fmt.Sprintf("%v", v))
	return b
}

// scrubbedError is an actor's error with the secrets removed from its
// message; errors.Is and errors.As still see the original.
type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }
