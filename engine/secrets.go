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
// from every actor's error, and what is over the documented limits is cut,
// saying so. The failure fingerprint is then computed from the scrubbed
// message, so it does not depend on a password that changes from run to
// run. Values are scrubbed when an attempt is recorded (keptValue): most
// attempts are not.
func (w *worker) scrub(res *attemptResult) {
	s := w.env.secrets()
	res.Message = artifact.CutText(s.String(res.Message), artifact.MaxText)
	for i := range res.Actors {
		r := &res.Actors[i]
		if r.Err != nil {
			if msg := artifact.CutText(s.String(r.Err.Error()), artifact.MaxText); msg != r.Err.Error() {
				r.Err = &scrubbedError{msg: msg, err: r.Err}
			}
		}
	}
}

// secrets are what must never be kept or printed of what actors produce.
func (e *env) secrets() redact.Secrets { return redact.Password(e.server.Password()) }

// keptValue is an actor's value as the artifact keeps it: its JSON (or its
// Go rendering as a JSON string when it has none), the password removed,
// within artifact.MaxActorValue.
func keptValue(s redact.Secrets, v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(fmt.Sprintf("%v", v))
	}
	return artifact.CutValue(s.JSON(b))
}

// scrubbedError is an actor's error with the secrets removed from its
// message; errors.Is and errors.As still see the original.
type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }
