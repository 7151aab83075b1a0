package engine

import (
	"encoding/json"
	"fmt"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/capture"
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
	s := attemptSecrets(w.env.secrets(), res)
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
func (e *env) secrets() redact.Secrets {
	return redact.Password(e.server.Password()).With(e.opts.Capture.Secrets...)
}

// attemptSecrets are base and the values of the PASSWORD literals
// (ALTER ROLE ... PASSWORD '...') the attempt's actors sent, those long
// enough to be told from ordinary text (redact.MinLiteral): the literals
// themselves are masked wherever they stand.
func attemptSecrets(base redact.Secrets, r *attemptResult) redact.Secrets {
	if r.Sched == nil {
		return base
	}
	var lits []string
	for _, u := range r.Sched.Units {
		lits = append(lits, redact.Literals(u.Bytes)...)
	}
	if len(lits) == 0 {
		return base
	}
	return base.With(lits...)
}

// wireRedactor removes the secrets from what an artifact keeps of the
// wire, at the one place it is recorded, so that every output made from the
// artifact (report, trace and its --json, pcapng, --spec, bundles) is
// clean: the capture and each unit's client bytes are masked byte for byte
// (redact.MaskByte: lengths, and so framing, stay), then decoded; server
// errors and connection failures are redacted as text. Unit hashes stay
// those of the bytes sent, which replay compares.
type wireRedactor struct{ s redact.Secrets }

// capture is the masked copy of a capture (raw itself is not written).
func (w wireRedactor) capture(raw []byte) ([]byte, error) { return capture.Redact(raw, w.s) }

// unit is a unit's client bytes as the record decodes them.
func (w wireRedactor) unit(b []byte) []byte { return w.s.Masked(b) }

// text is a server message or a failure as the record keeps it.
func (w wireRedactor) text(t string) string { return w.s.String(t) }

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

// redactError is err with the secrets out of its text; errors.Is and As
// still see err.
func redactError(s redact.Secrets, err error) error {
	if err == nil {
		return nil
	}
	msg := s.String(err.Error())
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
