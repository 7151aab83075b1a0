package capture_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/capture"
	"github.com/pginterleave/interleave/capture/pcapng"
	"github.com/pginterleave/interleave/internal/testkit/testenv"
	"github.com/pginterleave/interleave/pgserver"
)

var updateSeeds = flag.Bool("update-seeds", false, "rewrite testdata/fuzz/FuzzTrace/real-capture from the real attempt's capture")

// transferActor runs distinct statements through both protocols: a simple
// query, two extended-protocol statements with parameters (pgx prepares
// each in one unit and binds it in the next), and a simple query that fails.
func transferActor(name string) func(ctx context.Context, cs string) (any, error) {
	return func(ctx context.Context, cs string) (any, error) {
		c, err := pgx.Connect(ctx, cs)
		if err != nil {
			return nil, err
		}
		defer c.Close(ctx)
		if _, err := c.PgConn().Exec(ctx, "SELECT 'hello from "+name+"' AS greeting").ReadAll(); err != nil {
			return nil, err
		}
		var balance int
		if err := c.QueryRow(ctx, "SELECT balance FROM accounts WHERE id = $1", 1).Scan(&balance); err != nil {
			return nil, err
		}
		if _, err := c.Exec(ctx, "UPDATE accounts SET balance = $1 WHERE id = $2", balance+10, 1); err != nil {
			return nil, err
		}
		if _, err := c.PgConn().Exec(ctx, "SELECT 1/0 AS boom").ReadAll(); err == nil {
			return nil, errors.New("SELECT 1/0 did not fail")
		}
		return balance, nil
	}
}

func transferScenario() interleave.Scenario {
	return interleave.Scenario{
		Name: "tshark-transfer",
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, "CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL); INSERT INTO accounts VALUES (1, 100)")
			return err
		},
		Actors: []interleave.Actor{{Name: "alice", Run: transferActor("alice")}, {Name: "bob", Run: transferActor("bob")}},
		Invariant: func(ctx context.Context, db *pgx.Conn, _ []interleave.ActorResult) error {
			var b int
			if err := db.QueryRow(ctx, "SELECT balance FROM accounts WHERE id = 1").Scan(&b); err != nil {
				return err
			}
			if b != 120 {
				return fmt.Errorf("both deposits must be kept: balance %d, want 120", b)
			}
			return nil
		},
	}
}

// traceInputs converts an artifact's units and connections, as the trace
// command does.
func traceInputs(a *artifact.Artifact) ([]capture.UnitInfo, []capture.ConnInfo) {
	index := map[string]int{}
	for i, n := range a.Scenario.Actors {
		index[n] = i
	}
	var units []capture.UnitInfo
	for _, u := range a.Units {
		units = append(units, capture.UnitInfo{Actor: u.Actor, Conn: u.Conn, Unit: u.Unit, Hash: u.Hash, ReleaseStep: u.ReleaseStep, SQL: u.SQL})
	}
	var conns []capture.ConnInfo
	for _, c := range a.Connections {
		conns = append(conns, capture.ConnInfo{Actor: c.Actor, ActorIndex: index[c.Actor], Conn: c.Conn, Stream: c.Stream})
	}
	return units, conns
}

// TestTsharkReadsTheCapture runs a real two-actor scenario against a managed
// PostgreSQL, writes its capture as pcapng and has the real tshark dissect
// it: tshark must find exactly the statements of the artifact's units, per
// connection and in order, and see no TCP anomaly.
func TestTsharkReadsTheCapture(t *testing.T) {
	tshark := testenv.Command(t, "tshark", "install Wireshark's tshark (apt-get install -y tshark; scripts/ensure-deps tshark)")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// SCRAM: the capture then holds redacted authentication messages, which
	// the pcapng must carry without breaking the dissector's framing.
	srv, err := pgserver.StartLocal(ctx, pgserver.LocalOptions{Auth: "scram-sha-256"})
	if err != nil {
		t.Fatalf("this test needs PostgreSQL's server binaries: %v", err)
	}
	defer srv.Close()
	res, err := interleave.RunOnce(ctx, transferScenario(), interleave.Options{Server: interleave.ServerOptions{Use: srv}, Capture: interleave.CaptureOptions{Mode: "all"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomePass && res.Outcome != interleave.OutcomeViolation {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Message)
	}
	a := res.Artifact
	if a.Capture == nil {
		t.Fatal("the artifact has no capture")
	}
	raw, err := a.Capture.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if *updateSeeds {
		dir := filepath.Join("testdata", "fuzz", "FuzzTrace")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		seed := "go test fuzz v1\n[]byte(" + strconv.Quote(string(raw)) + ")\n"
		if err := os.WriteFile(filepath.Join(dir, "real-capture"), []byte(seed), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// What the artifact says ran: per connection, in unit order, the text
	// of each Query and Parse message.
	units := append([]artifact.Unit(nil), a.Units...)
	sort.SliceStable(units, func(i, j int) bool {
		if units[i].Actor != units[j].Actor {
			return units[i].Actor < units[j].Actor
		}
		if units[i].Conn != units[j].Conn {
			return units[i].Conn < units[j].Conn
		}
		return units[i].Unit < units[j].Unit
	})
	want := map[string][]string{} // "actor#conn" -> statements in order
	allSQL := map[string]bool{}
	total := 0
	for _, u := range units {
		for _, s := range u.SQL {
			allSQL[s] = true
		}
		if u.ReleaseStep < 0 {
			continue
		}
		n := strings.Count(u.Messages, "Q") + strings.Count(u.Messages, "P")
		if n == 0 {
			continue
		}
		if n != 1 || len(u.SQL) != 1 {
			t.Fatalf("unit %s#%d.%d (%s) has %d statements; the scenario should send one per unit", u.Actor, u.Conn, u.Unit, u.Messages, n)
		}
		k := fmt.Sprintf("%s#%d", u.Actor, u.Conn)
		want[k] = append(want[k], u.SQL[0])
		total++
	}
	if total < 8 {
		t.Fatalf("only %d statements in the artifact's units", total)
	}

	// The trace matches every released unit to its client write.
	ui, ci := traceInputs(a)
	tr, err := capture.Trace(raw, ui, ci)
	if err != nil {
		t.Fatal(err)
	}
	portOf := map[string]string{} // tcp port -> "actor#conn"
	matched := 0
	for _, s := range tr.Streams {
		if s.Conn >= 0 {
			portOf[strconv.Itoa(s.PCAPPort)] = fmt.Sprintf("%s#%d", s.Actor, s.Conn)
		}
		for _, e := range s.Exchanges {
			if e.Unit != nil {
				matched++
				if n := len(e.Server); n == 0 || e.Server[n-1].Type != "ReadyForQuery" {
					t.Errorf("unit %s#%d.%d: the answer does not end with ReadyForQuery: %+v", e.Unit.Actor, e.Unit.Conn, e.Unit.Unit, e.Server)
				}
			}
		}
	}
	for _, m := range tr.Missing {
		if m.ReleaseStep >= 0 {
			t.Errorf("released unit %s#%d.%d not found in the capture: %s", m.Actor, m.Conn, m.Unit, m.Reason)
		}
	}
	var text bytes.Buffer
	if err := tr.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"SASLInitialResponse", "[redacted: ", "ERROR 22012 division by zero", "sql: SELECT balance FROM accounts WHERE id = $1", `params [\x00000001 (binary; as int4 1)]`, "StartupMessage", "BackendKeyData"} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("the trace lacks %q", s)
		}
	}
	t.Logf("%d units matched; trace:\n%s", matched, text.String())

	// tshark.
	file := filepath.Join(t.TempDir(), "capture.pcapng")
	var pcap bytes.Buffer
	if err := pcapng.Write(&pcap, raw); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(pcap.Bytes(), []byte(srv.Password())) {
		t.Fatal("the pcapng contains the password")
	}
	if err := os.WriteFile(file, pcap.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, tshark, append([]string{"-r", file, "-d", "tcp.port==5432,pgsql"}, args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("tshark %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		return string(out)
	}
	out := run("-Y", "pgsql", "-T", "fields", "-e", "tcp.srcport", "-e", "pgsql.query")
	t.Logf("tshark -Y pgsql -T fields -e tcp.srcport -e pgsql.query:\n%s", out)
	got := map[string][]string{}
	found := 0
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		port, q, _ := strings.Cut(l, "\t")
		if q == "" {
			continue // a server message, or a client message without SQL
		}
		k, ok := portOf[port]
		if !ok {
			t.Fatalf("tshark found a statement on port %s, which is no connection of the artifact: %q", port, q)
		}
		if !allSQL[q] {
			t.Errorf("tshark found %q, which is no SQL text of the artifact's units", q)
		}
		got[k] = append(got[k], q)
		found++
	}
	if found != total {
		t.Errorf("tshark found %d statements, the artifact's units have %d", found, total)
	}
	for k, w := range want {
		if strings.Join(got[k], "\n") != strings.Join(w, "\n") {
			t.Errorf("connection %s:\ntshark   %q\nartifact %q", k, got[k], w)
		}
	}
	for s := range allSQL {
		seen := false
		for _, qs := range got {
			for _, q := range qs {
				seen = seen || q == s
			}
		}
		if !seen {
			t.Errorf("the artifact's SQL text %q is not in tshark's output", s)
		}
	}
	// Sequence and acknowledgement numbers as Wireshark checks them.
	if flags := strings.TrimSpace(run("-Y", "tcp.analysis.flags || _ws.malformed || _ws.expert.severity >= error")); flags != "" {
		t.Errorf("tshark reports TCP or dissection problems:\n%s", flags)
	}
}
