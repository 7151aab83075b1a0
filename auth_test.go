package interleave_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/capture"
	"github.com/pginterleave/interleave/internal/testkit/fixture"
	"github.com/pginterleave/interleave/pgserver"
)

// sslActor reports whether its own backend connection uses TLS.
func sslActor(ctx context.Context, cs string) (any, error) {
	c, err := pgx.Connect(ctx, cs)
	if err != nil {
		return nil, err
	}
	defer c.Close(ctx)
	var ssl bool
	err = c.QueryRow(ctx, "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").Scan(&ssl)
	return ssl, err
}

func TestUpstreamTLSVerifiedAgainstCA(t *testing.T) {
	ctx := fixture.Context(t)
	srv, err := pgserver.StartLocal(ctx, pgserver.LocalOptions{TLS: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	sc := fixture.Counter(false)
	sc.Actors[1].Run = sslActor
	sc.HandleActorErrors = true
	o := opts()
	o.Server.Use, o.Server.TLS = srv, true
	res, err := interleave.RunOnce(ctx, sc, o)
	if err != nil {
		t.Fatal(err)
	}
	var bob string
	for _, a := range res.Artifact.Actors {
		if a.Actor == "bob" {
			bob = string(a.Value) + a.Error
		}
	}
	if bob != "true" {
		t.Fatalf("bob's backend connection: ssl = %s; want true (the proxy must reach the server over TLS)", bob)
	}
	if !res.Artifact.Fingerprint.UpstreamTLS {
		t.Fatal("the fingerprint does not record upstream TLS")
	}

	// verify-full against the system roots must refuse the throwaway CA,
	// with one clear error before any attempt.
	url := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", srv.Port())
	_, err = interleave.RunOnce(ctx, sc, interleave.Options{Server: interleave.ServerOptions{DatabaseURL: url, TLS: true}})
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("a server certificate from an unknown CA was accepted: %v", err)
	}
}

func TestPasswordAuthenticationPassesThroughAndIsRedacted(t *testing.T) {
	for _, method := range []string{"scram-sha-256", "md5"} {
		t.Run(method, func(t *testing.T) {
			ctx := fixture.Context(t)
			srv, err := pgserver.StartLocal(ctx, pgserver.LocalOptions{Auth: method})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			if srv.Password() == "" {
				t.Fatal("no password was set")
			}
			o := opts()
			o.Server.Use = srv
			res, err := interleave.Explore(ctx, fixture.Counter(false), o)
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != interleave.OutcomeViolation {
				t.Fatalf("outcome %s: %s", res.Outcome, res.Message)
			}
			a := res.Artifact
			raw, err := a.Capture.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(raw, []byte(srv.Password())) {
				t.Fatal("the capture contains the password")
			}
			recs, _ := capture.Decode(raw)
			redacted := 0
			for _, r := range recs {
				if r.Kind == capture.KindRedacted {
					redacted++
				}
			}
			// Each of the two actors' connections: the client's response(s)
			// and, for SCRAM, the server's SASLContinue and SASLFinal.
			want := 2
			if method == "scram-sha-256" {
				want = 8
			}
			if redacted != want {
				t.Fatalf("%d redacted authentication messages, want %d", redacted, want)
			}
			enc, _ := interleaveArtifactJSON(a)
			if bytes.Contains(enc, []byte(srv.Password())) {
				t.Fatal("the artifact contains the password")
			}
		})
	}
}

func interleaveArtifactJSON(a any) ([]byte, error) {
	var b bytes.Buffer
	err := jsonEncoder(&b).Encode(a)
	return b.Bytes(), err
}

// A client that requires SCRAM channel binding cannot authenticate through
// the proxy; the run says why and what to change instead of a bare failure.
func TestChannelBindingRequiredIsExplained(t *testing.T) {
	ctx := fixture.Context(t)
	srv, err := pgserver.StartLocal(ctx, pgserver.LocalOptions{TLS: true, Auth: "scram-sha-256"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	sc := fixture.Counter(false)
	strict := func(ctx context.Context, cs string) (any, error) {
		c, err := pgx.Connect(ctx, cs+"&channel_binding=require")
		if err != nil {
			return nil, err
		}
		c.Close(ctx)
		return nil, nil
	}
	sc.Actors[0].Run, sc.Actors[1].Run = strict, strict
	o := opts()
	o.Server.Use, o.Server.TLS = srv, true
	res, err := interleave.RunOnce(ctx, sc, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomeHarnessError || !strings.Contains(res.Message, "channel_binding=prefer") {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Message)
	}
}
