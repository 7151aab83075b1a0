package bench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/pginterleave/interleave"
)

// Case is a scenario for the differential test of partial-order reduction:
// its every order is explored with and without reduction, and the sets of
// behaviours must be the same.
type Case struct {
	Name   string
	Setup  string
	Actors [][]Step
	// Funcs, when set, are the actors instead of Actors: application code
	// that connects to cs itself (any driver, any pool) and returns a
	// deterministic text of what it saw, part of the behaviour.
	Funcs []func(ctx context.Context, cs string) (any, error)
	// MinMajor is the oldest PostgreSQL major the case's setup runs on
	// (a feature of 17 or 18); on an older server the test checks that
	// the setup fails there instead of exploring.
	MinMajor int
	// Reset, when set, runs after each attempt's setup with the attempt
	// database's name (state the Funcs keep in the process, per worker).
	Reset func(db string)
	// Large cases take thousands of orders without reduction: the
	// benchmark runs them, CI does not.
	Large bool
	// Serial cases run each search with one worker. Where a row version
	// lands depends on the page pruning that any running transaction
	// holds back; with two workers the pruning cases (more-prune-*,
	// rn-prune-*) saw behaviours vary between runs of the same order,
	// with one they do not.
	Serial bool
	// Observe are queries the invariant runs on its connection, their
	// rows part of the behaviour (an invariant that reads a table
	// without ORDER BY sees the order the heap keeps its rows in).
	Observe []string
}

// Step is one statement an actor runs, or a control instruction.
type Step struct {
	SQL string
	// Simple sends it with the simple protocol (one Query, which may hold
	// several statements); otherwise pgx's extended protocol.
	Simple bool
	// Retry, on an actor: on SQLSTATE 40P01 or 40001, roll back and start
	// the actor's steps again (at most 5 times).
	Retry bool
	// Keep goes on after an error (the next step usually rolls back).
	Keep bool
	// Args are the statement's parameters ($1, ...), sent with the
	// extended protocol.
	Args []any
	// Raw, instead of SQL: protocol messages sent as they are, then read
	// up to ReadyForQuery (shapes pgx does not send: a Bind without its
	// Execute, a named portal, a Parse the server refuses).
	Raw []pgproto3.FrontendMessage
}

func q(sql string) Step      { return Step{SQL: sql} }
func simple(sql string) Step { return Step{SQL: sql, Simple: true} }
func keep(sql string) Step   { return Step{SQL: sql, Keep: true} }
func sk(sql string) Step     { return Step{SQL: sql, Simple: true, Keep: true} }

// Behaviour is what one attempt did, as the differential test compares it:
// each actor's results and errors, and the database at the end.
type Behaviour string

// Recorder collects the behaviours of a search.
type Recorder struct {
	mu   sync.Mutex
	Seen map[Behaviour]int
}

// Scenario builds the case as an interleave scenario whose invariant
// records each attempt's behaviour and never fails, so that the search
// explores every order.
func (c Case) Scenario(rec *Recorder) interleave.Scenario {
	sc := interleave.Scenario{
		Name:              "diff-" + c.Name,
		HandleActorErrors: true,
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, c.Setup)
			if err == nil && c.Reset != nil {
				c.Reset(db.Config().Database)
			}
			return err
		},
		Invariant: func(ctx context.Context, db *pgx.Conn, results []interleave.ActorResult) error {
			b, err := behaviour(ctx, db, results)
			if err != nil {
				return fmt.Errorf("%w: %v", interleave.ErrHarness, err)
			}
			for _, q := range c.Observe {
				if strings.HasPrefix(q, "SET ") { // a setting the invariant leaves on its connection
					if _, err := db.Exec(ctx, q); err != nil {
						return fmt.Errorf("%w: %s: %v", interleave.ErrHarness, q, err)
					}
					continue
				}
				var v any
				if err := db.QueryRow(ctx, q).Scan(&v); err != nil {
					return fmt.Errorf("%w: %s: %v", interleave.ErrHarness, q, err)
				}
				b += Behaviour(fmt.Sprintf("; %v", v))
			}
			rec.mu.Lock()
			if rec.Seen == nil {
				rec.Seen = map[Behaviour]int{}
			}
			rec.Seen[b]++
			if os.Getenv("DEBUG_BEHAVIOUR") != "" {
				fmt.Fprintf(os.Stderr, "BEHAVIOUR %s\n", b)
			}
			rec.mu.Unlock()
			return nil
		},
	}
	for i, steps := range c.Actors {
		sc.Actors = append(sc.Actors, interleave.Actor{Name: fmt.Sprintf("a%d", i+1), Run: runSteps(steps)})
	}
	for i, f := range c.Funcs {
		sc.Actors = append(sc.Actors, interleave.Actor{Name: fmt.Sprintf("a%d", i+1), Run: f})
	}
	return sc
}

// runSteps runs an actor's steps on one connection and returns what each
// statement returned (its rows as text), or the first error's SQLSTATE.
func runSteps(steps []Step) func(ctx context.Context, cs string) (any, error) {
	return func(ctx context.Context, cs string) (any, error) {
		cfg, err := pgx.ParseConfig(cs)
		if err != nil {
			return nil, err
		}
		var heard []string
		cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
			heard = append(heard, "notice "+n.Severity+" "+n.Code+" "+n.Message)
		}
		cfg.OnNotification = func(_ *pgconn.PgConn, n *pgconn.Notification) {
			heard = append(heard, "notification "+n.Channel+" "+n.Payload)
		}
		c, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			return nil, err
		}
		defer c.Close(ctx)
		retry := len(steps) > 0 && steps[0].Retry
		var out []string
		for try := 0; ; try++ {
			out = out[:0]
			err := func() error {
				for _, s := range steps {
					if s.SQL == "" && s.Raw == nil {
						continue
					}
					heard = heard[:0]
					rows, err := runStep(ctx, c, s)
					if len(heard) > 0 {
						rows += " {" + strings.Join(heard, " | ") + "}"
					}
					if err != nil {
						if len(heard) > 0 {
							out = append(out, "{"+strings.Join(heard, " | ")+"}")
						}
						out = append(out, "ERROR "+sqlState(err))
						if s.Keep {
							continue
						}
						return err
					}
					out = append(out, rows)
				}
				return nil
			}()
			if err == nil {
				return out, nil
			}
			st := sqlState(err)
			if retry && (st == "40P01" || st == "40001") && try < 5 {
				if _, rerr := c.Exec(ctx, "ROLLBACK"); rerr != nil {
					return out, rerr
				}
				continue
			}
			return out, err
		}
	}
}

func runStep(ctx context.Context, c *pgx.Conn, s Step) (string, error) {
	if s.Raw != nil {
		return runRaw(ctx, c, s.Raw)
	}
	if s.Simple {
		results, err := c.PgConn().Exec(ctx, s.SQL).ReadAll()
		if err != nil {
			return "", err
		}
		var parts []string
		for _, r := range results {
			if r.Err != nil {
				return "", r.Err
			}
			var cols []string
			for _, f := range r.FieldDescriptions {
				cols = append(cols, fmt.Sprintf("%s:%d", f.Name, f.DataTypeOID))
			}
			parts = append(parts, "["+r.CommandTag.String()+"]("+strings.Join(cols, ",")+")")
			for _, row := range r.Rows {
				var vals []string
				for _, v := range row {
					vals = append(vals, string(v))
				}
				parts = append(parts, strings.Join(vals, ","))
			}
		}
		return strings.Join(parts, ";"), nil
	}
	rows, err := c.Query(ctx, s.SQL, s.Args...)
	if err != nil {
		return "", err
	}
	var parts []string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return "", err
		}
		parts = append(parts, fmt.Sprint(vals...))
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	var cols []string
	for _, f := range rows.FieldDescriptions() {
		cols = append(cols, fmt.Sprintf("%s:%d", f.Name, f.DataTypeOID))
	}
	parts = append(parts, "["+rows.CommandTag().String()+"]("+strings.Join(cols, ",")+")")
	return strings.Join(parts, ";"), nil
}

// behaviour is each actor's results and error, and a hash of every user
// table's rows (and sequence's state).
func behaviour(ctx context.Context, db *pgx.Conn, results []interleave.ActorResult) (Behaviour, error) {
	var b strings.Builder
	for _, r := range results {
		fmt.Fprintf(&b, "%s=%v", r.Actor, r.Value)
		if r.Err != nil {
			var pe *pgconn.PgError
			if errors.As(r.Err, &pe) {
				fmt.Fprintf(&b, " error %s", pe.Code)
			} else {
				fmt.Fprintf(&b, " error %v", r.Err)
			}
		}
		b.WriteString("; ")
	}
	type rel struct {
		name string
		kind byte
	}
	var rels []rel
	listed, err := listRelations(ctx, db, `c.relkind IN ('r', 'S') AND n.nspname = 'public'`)
	if err != nil {
		return "", err
	}
	for _, x := range listed {
		rels = append(rels, rel{x[0], x[1][0]})
	}
	h := sha256.New()
	for _, r := range rels {
		var s *string
		q := "SELECT string_agg(t::text, E'\\n' ORDER BY t::text) FROM " + r.name + " t"
		if r.kind == 'S' {
			q = "SELECT last_value::text || ' ' || is_called::text FROM " + r.name
		}
		if err := db.QueryRow(ctx, q).Scan(&s); err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s:", r.name)
		if s != nil {
			h.Write([]byte(*s))
		}
		h.Write([]byte{0})
	}
	b.WriteString("db " + hex.EncodeToString(h.Sum(nil))[:16])
	more, err := moreBehaviour(ctx, db)
	if err != nil {
		return "", err
	}
	b.WriteString("; more " + more)
	return Behaviour(b.String()), nil
}

// moreBehaviour is what a user's invariant could see beyond public's
// tables and sequences: every user schema's tables (sorted and in the
// order a scan returns them), sequences and materialized views, large
// objects, comments, database and role settings, prepared transactions.
func moreBehaviour(ctx context.Context, db *pgx.Conn) (string, error) {
	var parts []string
	// A table with a column of a time type holds clock readings, which
	// differ in every attempt: only its row count is compared.
	const userSchemas = `n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
		AND n.nspname NOT LIKE 'pg_temp_%' AND n.nspname NOT LIKE 'pg_toast_temp_%'`
	listed, err := listRelations(ctx, db, `c.relkind IN ('r', 'S', 'm') AND `+userSchemas)
	if err != nil {
		return "", err
	}
	var timed *string
	if err := db.QueryRow(ctx, `SELECT string_agg(format('%I.%I', n.nspname, c.relname), '|' ORDER BY format('%I.%I', n.nspname, c.relname))
		FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_type y ON y.oid = a.atttypid
		WHERE a.attnum > 0 AND NOT a.attisdropped AND y.typname IN ('timestamptz', 'timestamp', 'date', 'time', 'timetz', 'interval')
		AND c.relkind IN ('r', 'm') AND `+userSchemas).Scan(&timed); err != nil {
		return "", err
	}
	clocked := map[string]bool{}
	if timed != nil {
		for _, n := range strings.Split(*timed, "|") {
			clocked[n] = true
		}
	}
	type rel struct{ name, kind string }
	var rels []rel
	for _, x := range listed {
		r := rel{x[0], x[1]}
		if clocked[r.name] {
			r.kind = "c"
		}
		rels = append(rels, r)
	}
	// Each query of a user table is one aggregate blind to the order rows
	// are kept in (footprint.PlacementReads), with its label added here:
	// the invariant must not observe the placement of keyed writes that
	// no case reads (Case.Observe does where one should).
	type query struct{ label, sql string }
	var queries []query
	for _, r := range rels {
		switch r.kind {
		case "S":
			queries = append(queries, query{r.name + " ", "SELECT last_value::text || ' ' || is_called::text FROM " + r.name})
		case "c":
			queries = append(queries, query{r.name + " rows ", "SELECT count(*) FROM " + r.name})
		default:
			queries = append(queries, query{r.name + " sorted ", "SELECT string_agg(t::text, ',' ORDER BY t::text) FROM " + r.name + " t"})
			if os.Getenv("DIFF_SCAN_ORDER") == "1" { // the physical order (with synchronize_seqscans off): Case.Observe reads it where a case needs it
				queries = append(queries, query{r.name + " scan ", "SELECT string_agg(t::text, ',') FROM " + r.name + " t"})
			}
		}
	}
	queries = append(queries,
		// The catalog, not lo_get: a volatile function would make the
		// invariant observe every table. For that reason prepared
		// transactions are not read (pg_prepared_xacts calls one); the
		// test servers allow none.
		query{"lo ", `SELECT string_agg(encode(data, 'escape'), ',' ORDER BY encode(data, 'escape')) FROM pg_largeobject`},
		// Comments on the user's relations and on large objects. No oid
		// is shown or compared by order: an oid shows the counter every
		// writer draws from, which makes the attempt unjudged
		// (footprint.Statement.Counter), and each aggregate is blind to
		// row order, so that the invariant observes no catalog.
		query{"comments ", `SELECT string_agg(format('%I.%I %s', n.nspname, c.relname, d.description), ',' ORDER BY format('%I.%I %s', n.nspname, c.relname, d.description))
			FROM pg_description d JOIN pg_class k ON k.oid = d.classoid JOIN pg_class c ON c.oid = d.objoid JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE k.relname = 'pg_class' AND ` + userSchemas},
		query{"lo comments ", `SELECT string_agg(d.description, ',' ORDER BY d.description) FROM pg_description d JOIN pg_class k ON k.oid = d.classoid WHERE k.relname = 'pg_largeobject'`},
		query{"settings ", `SELECT string_agg(format('%s/%s %s', CASE WHEN s.setdatabase = 0 THEN '' ELSE 'this' END, r.rolname, s.setconfig), ',' ORDER BY format('%s/%s %s', CASE WHEN s.setdatabase = 0 THEN '' ELSE 'this' END, r.rolname, s.setconfig))
			FROM pg_db_role_setting s LEFT JOIN pg_database d ON d.oid = s.setdatabase LEFT JOIN pg_roles r ON r.oid = s.setrole
			WHERE s.setdatabase = 0 OR d.datname = current_database()`},
	)
	for _, q := range queries {
		var v any
		if err := db.QueryRow(ctx, q.sql).Scan(&v); err != nil {
			return "", fmt.Errorf("%s: %w", q.sql, err)
		}
		if v == nil {
			v = ""
		}
		parts = append(parts, fmt.Sprintf("%s%v", q.label, v))
	}
	return strings.Join(parts, "; "), nil
}

// listRelations lists the relations where (over pg_class c and
// pg_namespace n) holds, as name and relkind, with one aggregate blind to
// the order rows are kept in (footprint.PlacementReads): the invariant
// must not observe the catalogs' placement, as a user's invariant that
// reads no catalog would not (review P).
func listRelations(ctx context.Context, db *pgx.Conn, where string) ([][2]string, error) {
	var s *string
	if err := db.QueryRow(ctx, `SELECT string_agg(format('%I.%I', n.nspname, c.relname) || ' ' || c.relkind::text, '|' ORDER BY format('%I.%I', n.nspname, c.relname) || ' ' || c.relkind::text)
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE `+where).Scan(&s); err != nil {
		return nil, err
	}
	if s == nil {
		return nil, nil
	}
	var out [][2]string
	for _, x := range strings.Split(*s, "|") {
		i := strings.LastIndexByte(x, ' ')
		out = append(out, [2]string{x[:i], x[i+1:]})
	}
	return out, nil
}

// Differential is the outcome of one case explored both ways.
type Differential struct {
	Case          string
	Full, Reduced int // attempts
	Behaviours    int // distinct behaviours without reduction
	// Classes is how many equivalence classes the unreduced search's
	// orders fell in (search.Options.CountClasses).
	Classes int
	// ReducedClasses is how many of them the reduced search's orders fell
	// in: its orders beyond that ran a class twice.
	ReducedClasses       int
	Lost, Extra          []Behaviour
	FullTime, ReduceTime time.Duration
	FullStop, ReduceStop string
	// Corrections: units the reduced search made global because
	// PostgreSQL held a relation lock outside their footprint.
	Corrections int
	// Reruns: extra runs, in both searches, of plans that could not be
	// followed the first time (a deadlock victim out of order, a wait
	// granted out of queue order); FullReruns and ReducedReruns each
	// search's. Full and Reduced count them.
	Reruns, FullReruns, ReducedReruns int
	// Unjudged: attempts of the reduced search it could not judge, each
	// expanded at every step (search.Summary.Unjudged).
	Unjudged int
}

// RunDifferential explores c with and without reduction on server opts
// and compares the behaviours. The reduced search runs with opts.Search as
// given (SourceSetsOnly included); the unreduced one also counts classes.
func RunDifferential(ctx context.Context, c Case, opts interleave.Options) (*Differential, error) {
	d := &Differential{Case: c.Name}
	var recs [2]Recorder
	for i, red := range []string{"none", "por"} {
		o := opts
		if err := o.Search.Reduction.Set(red); err != nil {
			return nil, err
		}
		// The reduction alone is judged: the check's samples would add
		// behaviours the reduction did not explore.
		o.Search.ReductionCheck = -1
		o.Search.CountClasses = true
		start := time.Now()
		res, err := interleave.Explore(ctx, c.Scenario(&recs[i]), o)
		if err != nil {
			return nil, fmt.Errorf("%s (reduction %s): %w", c.Name, red, err)
		}
		if res.Outcome != interleave.OutcomePass {
			return nil, fmt.Errorf("%s (reduction %s): %s: %s", c.Name, red, res.Outcome, res.Message)
		}
		d.Reruns += res.Summary.Reruns
		if i == 0 {
			d.Full, d.FullTime, d.FullStop = res.Summary.Attempted, time.Since(start), res.Summary.StopReason
			d.FullReruns = res.Summary.Reruns
			d.Classes = res.Summary.Classes
		} else {
			d.Reduced, d.ReduceTime, d.ReduceStop = res.Summary.Attempted, time.Since(start), res.Summary.StopReason
			d.ReducedReruns = res.Summary.Reruns
			d.Corrections = res.Summary.LockCorrections
			d.Unjudged = res.Summary.Unjudged
			d.ReducedClasses = res.Summary.Classes
		}
	}
	d.Behaviours = len(recs[0].Seen)
	for b := range recs[0].Seen {
		if recs[1].Seen[b] == 0 {
			d.Lost = append(d.Lost, b)
		}
	}
	for b := range recs[1].Seen {
		if recs[0].Seen[b] == 0 {
			d.Extra = append(d.Extra, b)
		}
	}
	sort.Slice(d.Lost, func(i, j int) bool { return d.Lost[i] < d.Lost[j] })
	return d, nil
}

// ReducedOrders explores c with the reduction (opts.Search as given, the
// check off) and returns the orders it ran.
func ReducedOrders(ctx context.Context, c Case, opts interleave.Options) (int, error) {
	var rec Recorder
	opts.Search.ReductionCheck = -1
	res, err := interleave.Explore(ctx, c.Scenario(&rec), opts)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", c.Name, err)
	}
	if res.Outcome != interleave.OutcomePass {
		return 0, fmt.Errorf("%s: %s: %s", c.Name, res.Outcome, res.Message)
	}
	return res.Summary.Attempted, nil
}

// runRaw sends msgs on c's connection and reads up to ReadyForQuery: the
// rows, "suspended" for a PortalSuspended, and the first error.
func runRaw(ctx context.Context, c *pgx.Conn, msgs []pgproto3.FrontendMessage) (string, error) {
	pc := c.PgConn()
	fe := pc.Frontend()
	for _, m := range msgs {
		fe.Send(m)
	}
	if err := fe.Flush(); err != nil {
		return "", err
	}
	var parts []string
	var first error
	for {
		m, err := pc.ReceiveMessage(ctx)
		if err != nil {
			return "", err
		}
		switch m := m.(type) {
		case *pgproto3.DataRow:
			var vals []string
			for _, v := range m.Values {
				vals = append(vals, string(v))
			}
			parts = append(parts, strings.Join(vals, ","))
		case *pgproto3.PortalSuspended:
			parts = append(parts, "suspended")
		case *pgproto3.ErrorResponse:
			if first == nil {
				first = &pgconn.PgError{Code: m.Code}
			}
		case *pgproto3.ReadyForQuery:
			return strings.Join(parts, ";"), first
		}
	}
}

// raw is one unit of msgs and a Sync; keep goes on after an error.
func raw(keep bool, msgs ...pgproto3.FrontendMessage) Step {
	return Step{Raw: append(msgs, &pgproto3.Sync{}), Keep: keep}
}
