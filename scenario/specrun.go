package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/pgserver"
)

// maxPermutations bounds the interleavings of a spec without permutation
// lines.
const maxPermutations = 10000

// testerSettings are the session settings pg_regress gives the isolation
// tester (PGDATESTYLE, PGTZ, and intervalstyle through PGOPTIONS): dates in
// the expected outputs read 12-22-2008.
var testerSettings = map[string]string{
	"DateStyle":     "Postgres, MDY",
	"TimeZone":      "America/Los_Angeles",
	"IntervalStyle": "postgres_verbose",
}

const testerSettingsSQL = "SET DateStyle = 'Postgres, MDY'; SET TimeZone = 'America/Los_Angeles'; SET IntervalStyle = 'postgres_verbose'"

// RunSpec runs spec as the isolation tester does: each permutation (every
// interleaving of the sessions' steps, in the tester's order, when the spec
// has no permutation lines) runs once, in exactly its order, with each
// session an actor whose blocks are one release unit each. It writes the
// tester's output to w, or, when spec.Expected is set, compares the output
// with that file and writes a unified diff when they differ (exit 1).
// A permutation that could not run exits 2 (4 when inconclusive).
func RunSpec(ctx context.Context, spec *Spec, opts interleave.Options, w io.Writer) (int, error) {
	var want []byte
	if spec.Expected != "" {
		var err error
		if want, err = os.ReadFile(spec.Expected); err != nil {
			return interleave.ExitError, err
		}
	}
	out, code, err := renderSpec(ctx, spec, opts)
	if err != nil {
		return interleave.ExitError, err
	}
	if spec.Expected == "" {
		_, err := io.WriteString(w, out)
		return code, err
	}
	if string(want) == out {
		fmt.Fprintf(w, "%s: the output matches %s.\n", spec.Name, spec.Expected)
		return code, nil
	}
	io.WriteString(w, unifiedDiff(spec.Expected, "interleave", string(want), out))
	fmt.Fprintf(w, "%s: the output differs from %s.\n", spec.Name, spec.Expected)
	if code == interleave.ExitPass {
		code = interleave.ExitViolation
	}
	return code, nil
}

// renderSpec runs every permutation and returns the tester's output and the
// exit code (2 or 4 when a permutation could not run).
func renderSpec(ctx context.Context, spec *Spec, opts interleave.Options) (string, int, error) {
	perms, err := spec.permutationsToRun()
	if err != nil {
		return "", interleave.ExitError, err
	}
	workers := opts.Search.Workers
	if workers <= 0 {
		workers = min(runtime.NumCPU(), 4)
	}
	srv, own := opts.Server.Use, false
	if srv == nil {
		if srv, err = openServer(ctx, opts, workers); err != nil {
			return "", interleave.ExitError, err
		}
		own = true
	}
	pool := newDBPool(srv, own)
	defer pool.Close()
	opts.Server.Use = pool
	outs := make([]*permOutput, len(perms))
	codes := make([]int, len(perms))
	errs := make([]error, len(perms))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, len(perms)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				outs[i], codes[i], errs[i] = spec.runPermutation(ctx, perms[i], opts)
			}
		}()
	}
	for i := range perms {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if ctx.Err() != nil {
		return "", interleave.ExitError, ctx.Err()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Parsed test spec with %d sessions\n", len(spec.Sessions))
	code := interleave.ExitPass
	for i, o := range outs {
		if errs[i] != nil {
			return "", interleave.ExitError, errs[i]
		}
		o.render(&b)
		switch {
		case codes[i] == interleave.ExitError:
			code = interleave.ExitError
		case codes[i] == interleave.ExitInconclusive && code == interleave.ExitPass:
			code = interleave.ExitInconclusive
		}
	}
	return b.String(), code, nil
}

// openServer starts the managed server (or opens the dedicated one) that
// every permutation shares.
func openServer(ctx context.Context, opts interleave.Options, workers int) (pgserver.Server, error) {
	url := opts.Server.DatabaseURL
	if url == "" {
		url = os.Getenv("TEST_DATABASE_URL")
	}
	if url != "" {
		return pgserver.OpenExternal(ctx, url, nil)
	}
	return pgserver.StartLocal(ctx, pgserver.LocalOptions{BinDir: opts.Server.PGBin, MaxConnections: 20 + workers*(maxSessions+4)})
}

// runPermutation runs one permutation in exactly its order: the sessions'
// setup blocks (each an actor's unit 0), the steps, then the teardown
// blocks. The global setup is the scenario's setup; the global teardown
// runs in its invariant, which never fails: the output is the verdict.
func (s *Spec) runPermutation(ctx context.Context, perm []PermutationStep, opts interleave.Options) (*permOutput, int, error) {
	out := &permOutput{spec: s, perm: perm, sessions: make([][]StepResult, len(s.Sessions)), units: make([][]artifact.Unit, len(s.Sessions))}
	names := s.actorNames()
	sc := interleave.Scenario{
		Name: s.Name,
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			out.setup = nil
			if _, err := db.PgConn().Exec(ctx, testerSettingsSQL).ReadAll(); err != nil {
				return err
			}
			for _, sql := range s.Setup {
				r := StepResult{Kind: "setup"}
				if err := execBlock(ctx, db.PgConn(), sql, &r); err != nil {
					return err
				}
				if r.Error != nil {
					return fmt.Errorf("setup failed: %s", r.Error.Message)
				}
				out.setup = append(out.setup, r)
			}
			return nil
		},
		Invariant: func(ctx context.Context, db *pgx.Conn, _ []interleave.ActorResult) error {
			if strings.TrimSpace(s.Teardown) != "" {
				r := StepResult{Kind: "teardown"}
				if execBlock(ctx, db.PgConn(), s.Teardown, &r) == nil {
					out.teardown = &r
				}
			}
			return nil
		},
	}
	var order []interleave.OrderStep
	units := make([]int, len(s.Sessions))
	plan := make([][]sessionUnit, len(s.Sessions))
	for i, sess := range s.Sessions {
		if sess.Setup != "" {
			plan[i] = append(plan[i], sessionUnit{kind: "setup", sql: sess.Setup})
			order = append(order, interleave.OrderStep{Actor: names[i], Unit: units[i]})
			units[i]++
		}
	}
	for _, ps := range perm {
		st := s.stepByName(ps.Name)
		plan[st.Session] = append(plan[st.Session], sessionUnit{kind: "step", step: st.Name, sql: st.SQL})
		order = append(order, interleave.OrderStep{Actor: names[st.Session], Unit: units[st.Session]})
		units[st.Session]++
	}
	for i, sess := range s.Sessions {
		if sess.Teardown != "" {
			plan[i] = append(plan[i], sessionUnit{kind: "teardown", sql: sess.Teardown})
			order = append(order, interleave.OrderStep{Actor: names[i], Unit: units[i]})
			units[i]++
		}
		sc.Actors = append(sc.Actors, interleave.Actor{Name: names[i], Run: sessionActor(plan[i])})
	}
	if len(sc.Actors) == 1 { // interleave needs two actors; this one sends nothing
		sc.Actors = append(sc.Actors, interleave.Actor{Name: names[len(names)-1], Run: func(context.Context, string) (any, error) { return nil, nil }})
	}
	o := opts
	o.Search.Order, o.Output.Out, o.Capture.Mode = order, "", interleave.CaptureOff
	res, err := interleave.RunOnce(ctx, sc, o)
	if err != nil {
		return nil, interleave.ExitError, err
	}
	a := res.Artifact
	for i := range s.Sessions {
		for _, ar := range a.Actors {
			if ar.Actor == names[i] && len(ar.Value) > 0 {
				if err := json.Unmarshal(ar.Value, &out.sessions[i]); err != nil {
					return nil, interleave.ExitError, fmt.Errorf("session %s's recorded results: %w", s.Sessions[i].Name, err)
				}
			}
		}
		for _, u := range a.Units {
			if u.Actor == names[i] && u.Conn == 0 && !u.Prepare {
				out.units[i] = append(out.units[i], u)
			}
		}
		sort.Slice(out.units[i], func(x, y int) bool { return out.units[i][x].Unit < out.units[i][y].Unit })
	}
	if res.Outcome != interleave.OutcomePass {
		out.failure = fmt.Sprintf("%s: %s", res.Outcome, res.Message)
		if res.Outcome == interleave.OutcomeInconclusive {
			return out, interleave.ExitInconclusive, nil
		}
		return out, interleave.ExitError, nil
	}
	return out, interleave.ExitPass, nil
}

// actorNames maps session names to actor names (interleave's rule:
// a letter, then letters, digits, '_' and '-', at most 48), unique; one
// more name follows for the idle actor a one-session spec needs.
func (s *Spec) actorNames() []string {
	seen := map[string]bool{}
	var names []string
	add := func(n string) {
		n = unsafeNameChars.ReplaceAllString(n, "_")
		if n == "" || !(n[0] >= 'A' && n[0] <= 'Z' || n[0] >= 'a' && n[0] <= 'z') {
			n = "s" + n
		}
		if len(n) > 40 {
			n = n[:40]
		}
		base := n
		for k := 2; seen[n]; k++ {
			n = fmt.Sprintf("%s-%d", base, k)
		}
		seen[n] = true
		names = append(names, n)
	}
	for _, sess := range s.Sessions {
		add(sess.Name)
	}
	add("idle")
	return names
}

// permutationsToRun is the spec's permutation lines or, without any, every
// interleaving of the sessions' steps in the tester's order (the first
// session's next step first, recursively).
func (s *Spec) permutationsToRun() ([][]PermutationStep, error) {
	if len(s.Permutations) > 0 {
		out := make([][]PermutationStep, len(s.Permutations))
		for i, p := range s.Permutations {
			out[i] = p.Steps
		}
		return out, nil
	}
	total, count := 0, 1.0
	for _, sess := range s.Sessions {
		for k := 1; k <= len(sess.Steps); k++ {
			total++
			count = count * float64(total) / float64(k) // multinomial, step by step
		}
	}
	if count > maxPermutations {
		return nil, fmt.Errorf("%s has %.0f interleavings of its steps (more than %d); add permutation lines", s.Path, count, maxPermutations)
	}
	var out [][]PermutationStep
	piles := make([]int, len(s.Sessions))
	var cur []PermutationStep
	var rec func()
	rec = func() {
		found := false
		for i, sess := range s.Sessions {
			if piles[i] < len(sess.Steps) {
				cur = append(cur, PermutationStep{Name: sess.Steps[piles[i]].Name})
				piles[i]++
				rec()
				piles[i]--
				cur = cur[:len(cur)-1]
				found = true
			}
		}
		if !found {
			out = append(out, append([]PermutationStep(nil), cur...))
		}
	}
	rec()
	return out, nil
}
