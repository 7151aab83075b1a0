package interleave_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/internal/testkit/fixture"
	"github.com/pginterleave/interleave/pgserver"
	"github.com/pginterleave/interleave/report"
)

// TestActorOutputNeverHoldsThePassword: every actor gets the server's
// password (in DATABASE_URL and PGPASSWORD). Whatever an actor prints on
// stdout or stderr, returns or fails with, and whatever the invariant says,
// the password is in neither the artifact, the result's message nor the
// HTML report; an actor printing 10 MB is cut to the limit, saying so.
func TestActorOutputNeverHoldsThePassword(t *testing.T) {
	ctx := fixture.Context(t)
	srv, err := pgserver.StartLocal(ctx, pgserver.LocalOptions{Auth: "scram-sha-256"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	password := srv.Password()
	if password == "" {
		t.Fatal("no password was set")
	}
	o := opts()
	o.Server.Use = srv

	errSentinel := errors.New("sentinel")
	leaky := func(ctx context.Context, cs string) (any, error) {
		u, _ := url.Parse(cs)
		p, _ := u.User.Password()
		return map[string]any{"url": cs, "password": p}, fmt.Errorf("cannot go on with %s (password %s): %w", cs, p, errSentinel)
	}
	for _, c := range []struct {
		name   string
		actor  interleave.Actor
		handle bool
	}{
		{"a command printing its environment", interleave.CommandActor("bob", []string{"sh", "-c", `echo "$DATABASE_URL $PGPASSWORD"`}, interleave.CommandOptions{}), true},
		{"a command printing JSON", interleave.CommandActor("bob", []string{"sh", "-c", `printf '{"url": "%s", "%s": [1, "%s"]}' "$DATABASE_URL" "$PGPASSWORD" "$PGPASSWORD"`}, interleave.CommandOptions{}), true},
		{"a failing command", interleave.CommandActor("bob", []string{"sh", "-c", `echo "$DATABASE_URL"; echo "connecting to $DATABASE_URL with $PGPASSWORD" >&2; exit 3`}, interleave.CommandOptions{}), false},
		{"a Go actor returning and failing with its connection string", interleave.Actor{Name: "bob", Run: leaky}, false},
		{"a Go actor whose error the invariant reports", interleave.Actor{Name: "bob", Run: leaky}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc := fixture.Counter(false)
			sc.Actors[1] = c.actor
			sc.HandleActorErrors = c.handle
			sc.Invariant = func(ctx context.Context, db *pgx.Conn, results []interleave.ActorResult) error {
				for _, r := range results {
					if r.Err != nil && !errors.Is(r.Err, errSentinel) {
						return fmt.Errorf("errors.Is no longer sees the actor's error: %v", r.Err)
					}
				}
				return fmt.Errorf("the invariant saw %v on a connection with password %s", results[1], db.Config().Password)
			}
			res, err := interleave.RunOnce(ctx, sc, o)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Outcome.Failed() || !strings.Contains(res.Message, "REDACTED") {
				t.Fatalf("outcome %s: %s", res.Outcome, res.Message)
			}
			enc, err := artifact.Encode(res.Artifact)
			if err != nil {
				t.Fatal(err)
			}
			var page bytes.Buffer
			if err := report.Render(&page, res.Artifact, report.Options{}); err != nil {
				t.Fatal(err)
			}
			for what, text := range map[string]string{"the message": res.Message, "the artifact": string(enc), "the report": page.String()} {
				if strings.Contains(text, password) {
					t.Errorf("%s holds the password:\n%s", what, shortText(text))
				}
			}
			if _, err := artifact.Decode(enc); err != nil {
				t.Fatalf("the redacted artifact is not valid: %v", err)
			}
		})
	}

	t.Run("an actor printing 10 MB", func(t *testing.T) {
		sc := fixture.Counter(false)
		sc.Actors[1] = interleave.CommandActor("bob", []string{"sh", "-c", `echo "$DATABASE_URL"; head -c 10000000 /dev/zero | tr '\0' x`}, interleave.CommandOptions{})
		sc.HandleActorErrors = true
		res, err := interleave.RunOnce(ctx, sc, o)
		if err != nil {
			t.Fatal(err)
		}
		bob := res.Artifact.Actors[1]
		var v string
		if err := json.Unmarshal(bob.Value, &v); err != nil {
			t.Fatalf("bob's value %s: %v", shortText(string(bob.Value)), err)
		}
		if len(bob.Value) > artifact.MaxActorValue || !strings.Contains(v, "[cut: 10000") || !strings.Contains(v, "over the limit of 1 MiB") || strings.Contains(v, password) {
			t.Fatalf("bob's value is %d bytes and ends %q", len(bob.Value), v[max(0, len(v)-200):])
		}
	})
}

func shortText(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…"
	}
	return s
}
