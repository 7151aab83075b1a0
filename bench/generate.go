package bench

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// DefaultGenBound is the largest number of orders a generated case may have
// without reduction (the multinomial of its actors' executing steps) unless
// told otherwise: the CI sample's bound.
const DefaultGenBound = 300

// Generate builds a small differential-test scenario from seed, always the
// same one for the same seed: a schema with some of what PostgreSQL can hide
// from a static reading of a statement (partitions, inheritance, triggers
// with dynamic SQL, rules, views with locking clauses, foreign keys,
// deferred constraints, sequences, identity and generated columns, user
// functions, advisory locks, a table in two schemas, row security, a
// database-wide default isolation level) and two or three actors of two to
// six executing steps, whose orders number at most DefaultGenBound.
func Generate(seed int64) Case {
	c, _ := GenerateBounded(seed, DefaultGenBound)
	return c
}

// GenerateBounded is Generate with another bound on the number of orders
// without reduction; it also returns the features the case exercises
// (sorted), so that a sample can be checked for coverage.
func GenerateBounded(seed int64, bound int) (Case, []string) {
	r := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
	// Tables created by the actors are drawn from a stream of their own,
	// so that the seeds that draw none keep the scenarios they had before
	// that module existed.
	side := rand.New(rand.NewPCG(uint64(seed), 0xd1b54a32d192ed03))
	// And the constraints module from a third, for the same reason.
	side2 := rand.New(rand.NewPCG(uint64(seed), 0x94d049bb133111eb))
	// And the deadlock module and the chained or aborted transaction
	// ends from a fourth.
	side3 := rand.New(rand.NewPCG(uint64(seed), 0xbf58476d1ce4e5b9))
	// And the unique-keys and relation-locks modules from a fifth.
	side4 := rand.New(rand.NewPCG(uint64(seed), 0x2545f4914f6cdd1d))
	for {
		g := &generator{r: r, side: side, side2: side2, side3: side3, side4: side4, tags: map[string]bool{}}
		c := g.build()
		c.Name = "gen-" + strconv.FormatInt(seed, 10)
		if Orders(c) <= uint64(bound) {
			feats := make([]string, 0, len(g.tags))
			for t := range g.tags {
				feats = append(feats, t)
			}
			sort.Strings(feats)
			return c, feats
		}
	}
}

// Orders is the number of orders of c's executing steps without reduction
// (the multinomial coefficient of the actors' step counts), not counting
// retries and deadlock victim choices.
func Orders(c Case) uint64 {
	total, n := 0, uint64(1)
	for _, steps := range c.Actors {
		k := ExecutingSteps(steps)
		for i := 1; i <= k; i++ {
			total++
			n = n * uint64(total) / uint64(i) // C(total, i) stays integral step by step
		}
	}
	return n
}

// ExecutingSteps counts the steps that send something.
func ExecutingSteps(steps []Step) int {
	n := 0
	for _, s := range steps {
		if s.SQL != "" || s.Raw != nil {
			n++
		}
	}
	return n
}

// genOp is a statement a module offers its actors. {a} is the actor's
// number, {t} its tenant, {role} its role.
type genOp struct {
	sql  string
	tags []string
	fail bool // may fail in some order (unique, NOWAIT, 40001 ...)
	tx   bool // only makes sense inside a transaction block
	// follow, on a prelude: the ops the actor's next statement is drawn
	// from, so that the setting is used.
	follow []genOp
}

type genModule struct {
	name     string
	setup    string
	ops      []genOp
	preludes []genOp
	roles    bool // grant the generated roles everything at the end of setup
	schemas  []string
}

type generator struct {
	r      *rand.Rand
	side   *rand.Rand // modCreateTable's and modForeignKeyRows' draws
	side2  *rand.Rand // modConstraints' draw
	side3  *rand.Rand // modDeadlock's draws and the chained or aborted transaction ends
	side4  *rand.Rand // modUnique's and modRelationLocks' draws
	nSide4 int        // how many of g.mods, at its end, side4 drew
	mods   []*genModule
	tags   map[string]bool
	dbIso  string
}

const (
	genRoleA = "interleave_gen_alice"
	genRoleB = "interleave_gen_bob"
)

func (g *generator) chance(p float64) bool { return g.r.Float64() < p }

func (g *generator) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g *generator) pickSide3(xs ...string) string { return xs[g.side3.IntN(len(xs))] }

func (g *generator) tag(ts ...string) {
	for _, t := range ts {
		g.tags[t] = true
	}
}

var genModules = []struct {
	weight int
	make   func(g *generator) *genModule
}{
	{3, (*generator).modCounter},
	{3, (*generator).modTenantPartitions},
	{2, (*generator).modRangePartitions},
	{2, (*generator).modInheritance},
	{3, (*generator).modTrigger},
	{2, (*generator).modRule},
	{3, (*generator).modView},
	{3, (*generator).modForeignKey},
	{3, (*generator).modSequence},
	{3, (*generator).modFunctions},
	{2, (*generator).modAdvisory},
	{3, (*generator).modSearchPath},
	{2, (*generator).modRowSecurity},
	{4, (*generator).modRows},
}

func (g *generator) build() Case {
	n := 1
	switch x := g.r.Float64(); {
	case x < 0.35:
		n = 2
	case x < 0.42:
		n = 3
	}
	used := map[int]bool{}
	total := 0
	for _, m := range genModules {
		total += m.weight
	}
	for len(g.mods) < n {
		x := g.r.IntN(total)
		for i, m := range genModules {
			if x < m.weight {
				if !used[i] {
					used[i] = true
					g.mods = append(g.mods, m.make(g))
				}
				break
			}
			x -= m.weight
		}
	}
	if g.side.Float64() < 0.15 {
		g.mods = append(g.mods, g.modCreateTable())
	}
	if g.side.Float64() < 0.15 {
		g.mods = append(g.mods, g.modForeignKeyRows())
	}
	if g.side2.Float64() < 0.12 {
		g.mods = append(g.mods, g.modConstraints())
	}
	if g.side3.Float64() < 0.12 {
		g.mods = append(g.mods, g.modDeadlock())
	}
	if g.side3.Float64() < 0.12 {
		g.mods = append(g.mods, g.modTraps())
	}
	// Appended after every module the main stream's focus rule looks at
	// (actorOnce), which finds them by name.
	if g.side4.Float64() < 0.12 {
		g.mods = append(g.mods, g.modUnique())
		g.nSide4++
	}
	if g.side4.Float64() < 0.10 {
		g.mods = append(g.mods, g.modRelationLocks())
		g.nSide4++
	}
	if g.side4.Float64() < 0.10 {
		g.mods = append(g.mods, g.modHidden())
		g.nSide4++
	}
	var setup []string
	roles := false
	var schemas []string
	for _, m := range g.mods {
		setup = append(setup, m.setup)
		roles = roles || m.roles
		schemas = append(schemas, m.schemas...)
	}
	if roles {
		// Roles are cluster-wide: several databases run this setup at
		// once, so creating them must tolerate another's concurrent
		// creation (a unique violation on pg_authid) as well as an
		// existing role.
		pre := ""
		for _, role := range []string{genRoleA, genRoleB} {
			pre += "DO $$ BEGIN CREATE ROLE " + role + "; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$;\n"
		}
		setup = append([]string{pre}, setup...)
		for _, role := range []string{genRoleA, genRoleB} {
			grant := "GRANT ALL ON ALL TABLES IN SCHEMA public TO " + role + "; GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO " + role + ";"
			for _, s := range schemas {
				grant += " GRANT USAGE ON SCHEMA " + s + " TO " + role + "; GRANT ALL ON ALL TABLES IN SCHEMA " + s + " TO " + role + ";"
			}
			setup = append(setup, grant)
		}
	}
	if g.chance(0.1) {
		g.dbIso = g.pick("repeatable read", "serializable")
		g.tag("iso-database-default")
		setup = append(setup, "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET default_transaction_isolation = %L', current_database(), '"+g.dbIso+"'); END $$;")
	}
	nActors := 2
	if g.chance(0.3) {
		nActors = 3
		g.tag("three-actors") // draws nothing: seeds keep their scenarios
	}
	c := Case{Setup: strings.Join(setup, "\n")}
	for a := 1; a <= nActors; a++ {
		c.Actors = append(c.Actors, g.bindParams(g.actor(a, nActors)))
	}
	return c
}

// genLiteral is "= 12" in a statement: a constant compared with or
// assigned to a column, which bindParams sends as a parameter.
var genLiteral = regexp.MustCompile(`= (\d+)\b`)

// bindParams sends some of an actor's extended-protocol statements' first
// "= constant" as a bound parameter ($1), as an int64 (binary) or as a
// string (text format), as drivers do: row keys are then read from the
// Bind message (footprint/rowkey.go). Drawn from side3 only.
func (g *generator) bindParams(steps []Step) []Step {
	for i, s := range steps {
		if s.Simple || strings.ContainsAny(s.SQL, ";$") || g.side3.Float64() >= 0.3 {
			continue
		}
		m := genLiteral.FindStringSubmatchIndex(s.SQL)
		if m == nil {
			continue
		}
		n, err := strconv.ParseInt(s.SQL[m[2]:m[3]], 10, 64)
		if err != nil {
			continue
		}
		g.tag("bound-params")
		steps[i].SQL = s.SQL[:m[2]] + "$1" + s.SQL[m[3]:]
		if g.side3.Float64() < 0.5 {
			steps[i].Args = []any{n}
		} else {
			steps[i].Args = []any{strconv.FormatInt(n, 10)}
		}
	}
	return steps
}

// actorCtx is what one actor's statements are filled with.
type actorCtx struct {
	a      int
	tenant string
	role   string
	focus  *genModule
	next   []genOp // ops the next statement is drawn from (after a prelude)
	// safe: only statements that fail by a deadlock or a serialization
	// failure (a retrying actor's)
	safe bool
	// sessionLock: the actor may hold a session-level advisory lock
	sessionLock bool
}

func (g *generator) fill(ac *actorCtx, op genOp) string {
	return strings.NewReplacer("{a}", strconv.Itoa(ac.a), "{t}", ac.tenant, "{role}", ac.role).Replace(op.sql)
}

// op draws a statement for the actor: mostly from its focus module, so
// that actors meet.
func (g *generator) op(ac *actorCtx, inTx bool) (string, genOp) {
	var pool []genOp
	if len(ac.next) > 0 {
		pool, ac.next = ac.next, nil
	} else {
		m := ac.focus
		if g.chance(0.15) {
			m = g.mods[g.r.IntN(len(g.mods))]
		}
		for _, o := range m.ops {
			if (inTx || !o.tx) && !(ac.safe && (o.fail || strings.Contains(o.sql, "pg_try_advisory_lock("))) {
				pool = append(pool, o)
			}
		}
	}
	o := pool[g.r.IntN(len(pool))]
	g.tag(o.tags...)
	if strings.Contains(o.sql, "pg_try_advisory_lock(") {
		ac.sessionLock = true
	}
	return g.fill(ac, o), o
}

func (g *generator) level() string {
	return g.pick("READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE")
}

// begin opens a transaction in one of the ways PostgreSQL allows, as one
// or two steps (two when budget allows a SET TRANSACTION).
func (g *generator) begin(budget int) []string {
	switch x := g.r.Float64(); {
	case x < 0.35:
		return []string{"BEGIN"}
	case x < 0.6:
		g.tag("iso-begin")
		return []string{"BEGIN ISOLATION LEVEL " + g.level()}
	case x < 0.7:
		g.tag("iso-begin")
		return []string{"START TRANSACTION ISOLATION LEVEL " + g.level()}
	case x < 0.75:
		g.tag("iso-begin")
		return []string{"BEGIN TRANSACTION ISOLATION LEVEL " + g.level() + ", READ WRITE"}
	case x < 0.8:
		// At SERIALIZABLE it waits for a safe snapshot and then has no
		// serialization conflicts (its writes fail: READ ONLY).
		g.tag("iso-begin", "read-only-deferrable")
		return []string{"BEGIN ISOLATION LEVEL " + g.level() + " READ ONLY DEFERRABLE"}
	default:
		if budget >= 2 {
			g.tag("iso-set-transaction")
			return []string{"BEGIN", "SET TRANSACTION ISOLATION LEVEL " + g.level()}
		}
		return []string{"BEGIN"}
	}
}

// sessionPreludes are settings any actor may start with.
func (g *generator) sessionPreludes() []genOp {
	lvl := strings.ToLower(g.level())
	return []genOp{
		{sql: "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL " + strings.ToUpper(lvl), tags: []string{"iso-session-characteristics"}},
		{sql: "SET default_transaction_isolation = '" + lvl + "'", tags: []string{"iso-default-transaction-isolation"}},
		{sql: "SET default_transaction_isolation TO '" + lvl + "'", tags: []string{"iso-default-transaction-isolation"}},
		// lock_timeout long enough never to end a wait: a shorter one
		// would make the outcome depend on timing, not on the order.
		{sql: "SET lock_timeout = '" + g.pick("20s", "30s", "1min") + "'", tags: []string{"lock-timeout"}},
	}
}

// actor writes actor a's steps: two to six that execute, every one kept
// going after an error (but a retrying actor's), so that each actor ends
// with no transaction open and no session lock held. Otherwise the
// backend would release them when the connection closes, a moment after
// the actor ends, and another actor's NOWAIT, SKIP LOCKED or try-lock
// would see them or not depending on timing.
func (g *generator) actor(a, nActors int) []Step {
	for {
		steps := g.actorOnce(a, nActors)
		if n := ExecutingSteps(steps); n >= 2 && n <= 6 {
			return steps
		}
	}
}

func (g *generator) actorOnce(a, nActors int) []Step {
	ac := &actorCtx{a: a, tenant: g.pick("a", "b"), role: g.pick(genRoleA, genRoleB)}
	ac.focus = g.mods[0]
	if len(g.mods) > 1 && g.chance(0.4) {
		ac.focus = g.mods[g.r.IntN(len(g.mods))]
	}
	if last := g.mods[len(g.mods)-1-g.nSide4]; (last.name == "deadlock" || last.name == "traps") && g.side3.Float64() < 0.6 {
		ac.focus = last // most actors meet on its rows
	}
	if g.nSide4 > 0 && g.side4.Float64() < 0.6 {
		ac.focus = g.mods[len(g.mods)-1-g.side4.IntN(g.nSide4)]
	}
	n := 2 + g.r.IntN(5)
	if nActors == 3 {
		n = 2 + g.r.IntN(3)
	}
	var steps []Step
	add := func(sql string, simple, keep bool) {
		steps = append(steps, Step{SQL: sql, Simple: simple, Keep: keep})
	}
	defer func() {
		// A Query holding BEGIN that failed half-way leaves its
		// transaction open (and aborted, still holding its locks).
		last := steps[len(steps)-1]
		if ac.safe {
			return
		}
		open := false
		for _, s := range steps {
			open = open || (s.Simple && strings.Contains(s.SQL, "BEGIN"))
		}
		switch last.SQL {
		case "COMMIT", "ROLLBACK", "END":
			open = false
		}
		if open {
			add("ROLLBACK", false, true)
		}
		if ac.sessionLock {
			add("SELECT pg_advisory_unlock_all()", false, true)
		}
	}()

	// A retrying actor: one transaction, nothing kept, restarted on a
	// deadlock or a serialization failure.
	if n >= 3 && g.chance(0.06) {
		g.tag("retry")
		ac.safe = true
		b := g.begin(n - 2)
		steps = append(steps, Step{SQL: b[0], Retry: true})
		for _, s := range b[1:] {
			add(s, false, false)
		}
		for ops := 0; ops == 0 || len(steps) < n-1; ops++ {
			sql, _ := g.op(ac, true)
			add(sql, strings.Contains(sql, ";"), false)
		}
		add("COMMIT", false, false)
		return steps
	}

	// A setting first: the module's (search_path, role, tenant) or the
	// session's isolation level or lock timeout.
	if g.chance(0.35) {
		var pool []genOp
		for _, m := range g.mods {
			pool = append(pool, m.preludes...)
			if m == ac.focus && len(m.preludes) > 0 {
				pool = append(pool, m.preludes...) // twice the odds
			}
		}
		pool = append(pool, g.sessionPreludes()...)
		if g.dbIso != "" {
			pool = append(pool, genOp{sql: "SET default_transaction_isolation = 'read committed'", tags: []string{"iso-default-transaction-isolation"}})
		}
		p := pool[g.r.IntN(len(pool))]
		g.tag(p.tags...)
		ac.next = p.follow
		sql := g.fill(ac, p)
		if len(p.follow) > 0 && g.chance(0.3) {
			// The setting and its first use in one Query.
			op, _ := g.op(ac, false)
			g.tag("multi-statement", "autocommit")
			add(sql+"; "+op, true, true)
		} else {
			add(sql, g.chance(0.2), false)
		}
	}

	for len(steps) < n {
		rem := n - len(steps)
		x := g.r.Float64()
		if rem < 3 {
			// Only the one-step shapes fit: a transaction in one Query,
			// several statements in one Query, or one statement.
			x = 0.6 + 0.4*x
		}
		switch {
		case rem >= 5 && x < 0.12:
			// Savepoints.
			g.tag("savepoint")
			b := g.begin(1)
			add(b[0], false, true)
			add("SAVEPOINT s1", false, true)
			sql, _ := g.op(ac, true)
			add(sql, strings.Contains(sql, ";"), true)
			if g.chance(0.75) {
				g.tag("rollback-to-savepoint")
				add("ROLLBACK TO SAVEPOINT s1", g.chance(0.2), true)
			} else {
				add("RELEASE SAVEPOINT s1", false, true)
			}
			if len(steps) < n-1 {
				sql, _ := g.op(ac, true)
				add(sql, strings.Contains(sql, ";"), true)
			}
			add(g.pick("COMMIT", "COMMIT", "ROLLBACK"), false, true)
		case rem >= 3 && x < 0.25:
			// A transaction with a COMMIT; BEGIN checkpoint in one Query.
			g.tag("commit-begin-checkpoint", "multi-statement")
			next := "BEGIN"
			if g.chance(0.4) {
				g.tag("iso-begin")
				next = "BEGIN ISOLATION LEVEL " + g.level()
			}
			if rem >= 5 && g.chance(0.5) {
				add(g.begin(1)[0], false, true)
				sql, _ := g.op(ac, true)
				add(sql, strings.Contains(sql, ";"), true)
				add("COMMIT; "+next, true, true)
			} else if rem >= 4 && g.chance(0.5) {
				add(g.begin(1)[0], false, true)
				sql, _ := g.op(ac, true)
				add(sql+"; COMMIT; "+next, true, true)
			} else {
				sql, _ := g.op(ac, true)
				add("BEGIN; "+sql+"; COMMIT; "+next, true, true)
				g.tag("begin-commit-in-one-query")
			}
			sql, _ := g.op(ac, true)
			add(sql, strings.Contains(sql, ";"), true)
			add("COMMIT", false, true)
		case rem >= 3 && x < 0.6:
			// An explicit transaction.
			b := g.begin(rem - 2)
			for _, s := range b {
				add(s, g.chance(0.15), true)
			}
			k := 1 + g.r.IntN(n-len(steps)-1)
			if k >= 2 && g.chance(0.25) {
				// A first statement that reads nothing but takes a
				// REPEATABLE READ transaction's snapshot.
				g.tag("snapshot-probe")
				add("SELECT 1", g.chance(0.3), true)
				k--
			}
			for i := 0; i < k; i++ {
				sql, _ := g.op(ac, true)
				add(sql, strings.Contains(sql, ";") || g.chance(0.15), true)
			}
			end := g.pick("COMMIT", "COMMIT", "COMMIT", "ROLLBACK", "END")
			if g.side3.Float64() < 0.15 {
				// A chained end (the next transaction has the same
				// characteristics), after an error half the time: the
				// failed statement ends the transaction, the chained
				// one begins at the ROLLBACK or COMMIT AND CHAIN. Drawn
				// from side3 alone, so that a draw the actor's step
				// limit rejects leaves the main stream as it was.
				aborted := g.side3.Float64() < 0.5
				extra := 2
				if aborted {
					extra++
				}
				if ExecutingSteps(steps)+extra+1 <= 6 {
					g.tag("chain")
					if aborted {
						g.tag("aborted-block")
						add(g.pickSide3("SELECT 1/0", "SELECT 1/(count(*) - count(*)) FROM pg_class WHERE false"), false, true)
					}
					add(g.pickSide3("COMMIT AND CHAIN", "ROLLBACK AND CHAIN", "ROLLBACK AND CHAIN"), false, true)
					r := g.r
					g.r = g.side3
					sql, _ := g.op(ac, true)
					g.r = r
					add(sql, strings.Contains(sql, ";"), true)
				}
			}
			add(end, g.chance(0.15), true)
		case x < 0.7:
			// A whole transaction in one Query.
			g.tag("begin-commit-in-one-query", "multi-statement")
			b := "BEGIN"
			if g.chance(0.5) {
				g.tag("iso-begin")
				b = "BEGIN ISOLATION LEVEL " + g.level()
			}
			parts := []string{b}
			for i := 0; i < 1+g.r.IntN(2); i++ {
				sql, _ := g.op(ac, true)
				parts = append(parts, sql)
			}
			parts = append(parts, g.pick("COMMIT", "COMMIT", "ROLLBACK"))
			add(strings.Join(parts, "; "), true, true)
			if rem >= 2 && g.chance(0.15) {
				// Finish a transaction the Query left open when it failed.
				add("ROLLBACK", false, true)
			}
		case x < 0.82:
			// Several statements in one Query, one implicit transaction.
			g.tag("multi-statement", "autocommit")
			s1, _ := g.op(ac, false)
			s2, _ := g.op(ac, false)
			add(s1+"; "+s2, true, true)
		default:
			g.tag("autocommit")
			sql, _ := g.op(ac, false)
			add(sql, strings.Contains(sql, ";") || g.chance(0.2), true)
		}
	}
	return steps
}

// The modules. Every result must be the same for the same order: no
// random(), no clock, no unordered multi-row results (aggregates or ORDER
// BY instead), nothing waiting for a timeout.

func (g *generator) modCounter() *genModule {
	m := &genModule{name: "counter", setup: "CREATE TABLE acct (id int PRIMARY KEY, bal int NOT NULL);\nINSERT INTO acct VALUES (1, 10), (2, 20);"}
	m.ops = []genOp{
		{sql: "UPDATE acct SET bal = bal + {a} WHERE id = 1 RETURNING bal"},
		{sql: "UPDATE acct SET bal = bal * 2 WHERE id = 2 RETURNING bal"},
		{sql: "SELECT bal FROM acct WHERE id = 1"},
		{sql: "SELECT sum(bal) FROM acct"},
		{sql: "SELECT bal FROM acct WHERE id = 1 FOR UPDATE"},
		{sql: "SELECT bal FROM acct WHERE id = 2 FOR UPDATE NOWAIT", fail: true, tags: []string{"nowait"}},
		{sql: "SELECT id FROM acct ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED", tags: []string{"skip-locked"}},
		{sql: "INSERT INTO acct VALUES (3, {a})", fail: true},
		{sql: "DELETE FROM acct WHERE id = 2"},
		{sql: "LOCK TABLE acct IN SHARE ROW EXCLUSIVE MODE", tx: true, tags: []string{"lock-table"}},
		{sql: "LOCK TABLE acct IN EXCLUSIVE MODE NOWAIT", tx: true, fail: true, tags: []string{"lock-table", "nowait"}},
		{sql: "CREATE TEMP TABLE IF NOT EXISTS acct_snap AS SELECT * FROM acct; UPDATE acct SET bal = (SELECT sum(bal) FROM acct_snap) WHERE id = 2 RETURNING bal", tags: []string{"temp-table"}},
		// A temporary table that hides acct for the session's later
		// unqualified statements.
		{sql: "CREATE TEMP TABLE IF NOT EXISTS acct (id int, bal int); INSERT INTO acct VALUES (1, 100)", tags: []string{"temp-table", "temp-shadow"}},
	}
	return m
}

// modRows: statements on one row by primary key, which the reduction
// treats row by row (footprint/rowkey.go), beside what must keep the whole
// table: a key that changes, an insert of a deleted key, SKIP LOCKED, a
// sum, LOCK TABLE.
func (g *generator) modRows() *genModule {
	g.tag("rows-by-key")
	m := &genModule{name: "rows", setup: "CREATE TABLE slot (id int PRIMARY KEY, v int NOT NULL);\nINSERT INTO slot VALUES (1, 0), (2, 0), (3, 0);"}
	m.ops = []genOp{
		{sql: "UPDATE slot SET v = v + {a} WHERE id = 1 RETURNING v"},
		{sql: "UPDATE slot SET v = v * 2 + 1 WHERE id = 2 RETURNING v"},
		{sql: "UPDATE slot SET v = v - 1 WHERE id = 3 AND v > -3 RETURNING v"},
		{sql: "SELECT v FROM slot WHERE id = 2"},
		{sql: "SELECT v FROM slot WHERE id = 3 FOR SHARE"},
		{sql: "SELECT v FROM slot WHERE id = 1 FOR UPDATE"},
		{sql: "SELECT v FROM slot WHERE id = 3 FOR UPDATE SKIP LOCKED", tags: []string{"skip-locked"}},
		{sql: "SELECT v FROM slot WHERE id = 2 FOR UPDATE NOWAIT", fail: true, tags: []string{"nowait"}},
		{sql: "DELETE FROM slot WHERE id = 3 RETURNING v"},
		{sql: "INSERT INTO slot VALUES (3, {a})", fail: true},
		{sql: "UPDATE slot SET id = 4 WHERE id = 2 RETURNING id", fail: true, tags: []string{"key-change"}},
		{sql: "UPDATE slot SET v = v + 10 WHERE id = 4 RETURNING v"},
		{sql: "SELECT sum(v) FROM slot"},
		{sql: "SELECT count(*) FROM slot WHERE v > 0"},
		// Lock modes and requalification after a wait (EvalPlanQual in
		// READ COMMITTED), and a subquery that reads by the snapshot.
		{sql: "SELECT v FROM slot WHERE id = 1 FOR NO KEY UPDATE", tags: []string{"row-lock-modes"}},
		{sql: "SELECT v FROM slot WHERE id = 2 FOR KEY SHARE", tags: []string{"row-lock-modes"}},
		{sql: "UPDATE slot SET v = v + 1 WHERE id = 2 AND v < 3 RETURNING v", tags: []string{"requalify"}},
		{sql: "DELETE FROM slot WHERE id = 1 AND v > 1 RETURNING v", tags: []string{"requalify"}},
		{sql: "UPDATE slot SET v = (SELECT max(v) FROM slot) + 1 WHERE id = 3 RETURNING v", tags: []string{"requalify"}},
		// Shapes whose footprint is not one row: a join, a CTE, an
		// upsert, several keys, a locking join.
		{sql: "UPDATE slot s SET v = s.v + o.v FROM slot o WHERE s.id = 1 AND o.id = 2 RETURNING s.v", tags: []string{"row-shapes"}},
		{sql: "WITH u AS (UPDATE slot SET v = v + 1 WHERE id = 2 RETURNING v) SELECT v FROM u", tags: []string{"row-shapes"}},
		{sql: "INSERT INTO slot VALUES (2, {a}) ON CONFLICT (id) DO UPDATE SET v = slot.v + 1 RETURNING v", tags: []string{"row-shapes", "upsert"}},
		{sql: "UPDATE slot SET v = v + 1 WHERE id IN (1, 3) RETURNING v", tags: []string{"row-shapes"}},
		{sql: "SELECT s.v FROM slot s JOIN slot t ON t.id = s.id + 1 WHERE s.id = 1 FOR UPDATE OF s", tags: []string{"row-shapes", "row-lock-modes"}},
		// A key deleted and inserted again: a new tuple, which a waiter
		// for the old one does not follow (case rows-wait-reinsert).
		{sql: "DELETE FROM slot WHERE id = 1; INSERT INTO slot VALUES (1, {a})", fail: true, tags: []string{"reinsert"}},
		{sql: "DELETE FROM slot WHERE id = 2 RETURNING v", tags: []string{"reinsert"}},
		{sql: "INSERT INTO slot VALUES (2, {a}) ON CONFLICT DO NOTHING RETURNING v", tags: []string{"reinsert"}},
	}
	return m
}

func (g *generator) modTenantPartitions() *genModule {
	m := &genModule{name: "tenants", setup: `CREATE TABLE ev (tenant text, id int, v int NOT NULL) PARTITION BY LIST (tenant);
CREATE TABLE ev_a PARTITION OF ev FOR VALUES IN ('a');
CREATE TABLE ev_b PARTITION OF ev FOR VALUES IN ('b');
CREATE TABLE ev_other PARTITION OF ev DEFAULT;
CREATE UNIQUE INDEX ev_key ON ev (tenant, id);
INSERT INTO ev VALUES ('a', 1, 0), ('b', 1, 0), ('c', 1, 0), (NULL, 1, 0);`}
	p := []string{"partition", "tenant-filter"}
	m.ops = []genOp{
		{sql: "UPDATE ev SET v = v + {a} WHERE tenant = '{t}' AND id = 1 RETURNING v", tags: p},
		{sql: "SELECT sum(v) FROM ev WHERE tenant = '{t}'", tags: p},
		{sql: "SELECT count(*), sum(v) FROM ev_a", tags: []string{"partition"}},
		{sql: "SELECT count(*), sum(v) FROM ev", tags: []string{"partition"}},
		{sql: "INSERT INTO ev VALUES ('{t}', 2, {a})", fail: true, tags: p},
		{sql: "UPDATE ev SET tenant = 'b' WHERE tenant = 'a' AND id = 1 RETURNING v", fail: true, tags: append(p, "partition-row-movement")},
		{sql: "SELECT count(*), sum(v) FROM ev WHERE tenant IS NULL", tags: p},
		{sql: "UPDATE ev SET v = v + 10 WHERE tenant IS NULL RETURNING v", tags: p},
		{sql: "DELETE FROM ev WHERE tenant = '{t}' AND id = 2", tags: p},
		{sql: "SELECT v FROM ev WHERE tenant = '{t}' AND id = 1 FOR UPDATE", tags: p},
		{sql: "SELECT sum(v) FROM ev WHERE tenant = ANY ('{a,c}')", tags: p},
	}
	// The tenant of a session setting: known only at run time, NULL
	// where it is not set.
	byTenant := []string{"partition", "tenant-filter", "tenant-setting"}
	follow := []genOp{
		{sql: "UPDATE ev SET v = v + {a} WHERE tenant = current_setting('app.tenant', true) AND id = 1 RETURNING v", tags: byTenant},
		{sql: "SELECT sum(v) FROM ev WHERE tenant = current_setting('app.tenant', true)", tags: byTenant},
		{sql: "SELECT v FROM ev WHERE tenant = current_setting('app.tenant') AND id = 1 FOR UPDATE", tags: byTenant},
		{sql: "DELETE FROM ev WHERE tenant = current_setting('app.tenant', true) AND id = 1", tags: byTenant},
	}
	m.ops = append(m.ops, follow[0], follow[1], follow[3]) // not the one that fails where the setting is unset
	m.preludes = []genOp{
		{sql: "SET app.tenant = '{t}'", tags: byTenant, follow: follow},
		{sql: "SELECT set_config('app.tenant', '{t}', false)", tags: byTenant, follow: follow},
	}
	return m
}

func (g *generator) modRangePartitions() *genModule {
	m := &genModule{name: "months", setup: `CREATE TABLE ms (d date NOT NULL, n int NOT NULL) PARTITION BY RANGE (d);
CREATE TABLE ms_h1 PARTITION OF ms FOR VALUES FROM ('2026-01-01') TO ('2026-07-01');
CREATE TABLE ms_h2 PARTITION OF ms FOR VALUES FROM ('2026-07-01') TO ('2027-01-01');
INSERT INTO ms VALUES ('2026-02-01', 0), ('2026-08-01', 0);`}
	p := []string{"partition", "partition-key-filter"}
	m.ops = []genOp{
		{sql: "UPDATE ms SET n = n + {a} WHERE d = '2026-02-01' RETURNING n", tags: p},
		{sql: "UPDATE ms SET n = n * 3 WHERE d = '2026-08-01' RETURNING n", tags: p},
		{sql: "SELECT sum(n) FROM ms WHERE d >= '2026-07-01'", tags: p},
		{sql: "SELECT count(*), sum(n) FROM ms WHERE d < '2026-07-01'", tags: p},
		{sql: "SELECT count(*), sum(n) FROM ms_h1", tags: []string{"partition"}},
		{sql: "SELECT count(*), sum(n) FROM ms", tags: []string{"partition"}},
		{sql: "INSERT INTO ms VALUES ('2026-0{a}-15', {a})", tags: []string{"partition"}},
		{sql: "UPDATE ms SET d = '2026-09-01' WHERE d = '2026-02-01' RETURNING n", tags: append(p, "partition-row-movement")},
		{sql: "DELETE FROM ms_h2 WHERE n = 0", tags: []string{"partition"}},
		{sql: "SELECT n FROM ms WHERE d = '2026-08-01' FOR UPDATE", tags: p},
		{sql: "SELECT n FROM ms WHERE d = '2026-02-01' FOR UPDATE SKIP LOCKED", tags: append(p, "skip-locked")},
	}
	return m
}

func (g *generator) modInheritance() *genModule {
	m := &genModule{name: "inheritance", setup: `CREATE TABLE animal (id int, name text, legs int NOT NULL);
CREATE TABLE dog (breed text) INHERITS (animal);
INSERT INTO animal VALUES (1, 'cat', 4);
INSERT INTO dog VALUES (2, 'rex', 4, 'lab');`}
	t := []string{"inheritance"}
	m.ops = []genOp{
		{sql: "UPDATE animal SET legs = legs + 1 WHERE name = 'rex' RETURNING legs", tags: t},
		{sql: "SELECT sum(legs) FROM dog", tags: t},
		{sql: "SELECT count(*), sum(legs) FROM ONLY animal", tags: t},
		{sql: "SELECT count(*), sum(legs) FROM animal", tags: t},
		{sql: "INSERT INTO dog VALUES (1{a}, 'pup{a}', 3, 'mix')", tags: t},
		{sql: "DELETE FROM animal WHERE id = 2", tags: t},
		{sql: "UPDATE ONLY animal SET legs = legs * 2 RETURNING legs", tags: t},
		{sql: "SELECT legs FROM dog WHERE id = 2 FOR UPDATE", tags: t},
		{sql: "SELECT legs FROM animal WHERE id = 2 FOR UPDATE NOWAIT", fail: true, tags: append(t, "nowait")},
	}
	return m
}

func (g *generator) modTrigger() *genModule {
	setup := `CREATE TABLE item (id int PRIMARY KEY, qty int NOT NULL);
CREATE TABLE item_log (id int, qty int);
CREATE TABLE item_stats (n int NOT NULL);
INSERT INTO item VALUES (1, 5), (2, 5);
INSERT INTO item_stats VALUES (0);
`
	t := []string{"trigger"}
	dyn := g.chance(0.6)
	if dyn {
		t = append(t, "trigger-dynamic-sql")
		setup += `CREATE FUNCTION item_audit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('INSERT INTO %I VALUES ($1, $2)', TG_TABLE_NAME || '_log') USING NEW.id, NEW.qty;
  RETURN NEW;
END $$;
CREATE TRIGGER item_audit AFTER INSERT OR UPDATE ON item FOR EACH ROW EXECUTE FUNCTION item_audit();
`
	}
	if !dyn || g.chance(0.5) {
		setup += `CREATE FUNCTION item_count() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE item_stats SET n = n + 1; RETURN NULL; END $$;
CREATE TRIGGER item_count AFTER UPDATE OR DELETE ON item FOR EACH STATEMENT EXECUTE FUNCTION item_count();
`
	}
	if g.chance(0.4) {
		t = append(t, "trigger-before")
		setup += `CREATE FUNCTION item_bonus() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.qty := NEW.qty + (SELECT n FROM item_stats); RETURN NEW; END $$;
CREATE TRIGGER item_bonus BEFORE INSERT ON item FOR EACH ROW EXECUTE FUNCTION item_bonus();
`
	}
	m := &genModule{name: "trigger", setup: setup}
	m.ops = []genOp{
		{sql: "UPDATE item SET qty = qty - 1 WHERE id = 1 RETURNING qty", tags: t},
		{sql: "INSERT INTO item VALUES (1{a}, {a}) RETURNING qty", tags: t},
		{sql: "SELECT count(*), coalesce(sum(qty), 0) FROM item_log", tags: t},
		{sql: "SELECT n FROM item_stats", tags: t},
		{sql: "UPDATE item_stats SET n = n + 10 RETURNING n", tags: t},
		{sql: "DELETE FROM item WHERE id = 2", tags: t},
		{sql: "SELECT qty FROM item WHERE id = 1", tags: t},
		{sql: "WITH d AS (DELETE FROM item_log RETURNING 1) SELECT count(*) FROM d", tags: t},
		{sql: "SELECT n FROM item_stats FOR UPDATE", tags: t},
	}
	return m
}

func (g *generator) modRule() *genModule {
	m := &genModule{name: "rule", setup: `CREATE TABLE msg (id int PRIMARY KEY, body text NOT NULL);
CREATE TABLE msg_audit (id int, what text);
INSERT INTO msg VALUES (1, 'hello');
CREATE RULE msg_ins AS ON INSERT TO msg DO ALSO INSERT INTO msg_audit VALUES (NEW.id, 'ins');
CREATE RULE msg_upd AS ON UPDATE TO msg DO ALSO INSERT INTO msg_audit VALUES (NEW.id, 'upd');`}
	t := []string{"rule"}
	m.ops = []genOp{
		{sql: "INSERT INTO msg VALUES (1{a}, 'from {a}')", fail: true, tags: t},
		{sql: "INSERT INTO msg VALUES (5, 'five')", fail: true, tags: t},
		{sql: "UPDATE msg SET body = body || '{a}' WHERE id = 1", tags: t},
		{sql: "SELECT count(*) FROM msg_audit", tags: t},
		{sql: "SELECT string_agg(id || what, ',' ORDER BY id, what) FROM msg_audit", tags: t},
		{sql: "DELETE FROM msg_audit WHERE what = 'ins'", tags: t},
		{sql: "SELECT string_agg(id || body, ',' ORDER BY id) FROM msg", tags: t},
	}
	return m
}

func (g *generator) modView() *genModule {
	lock, tag := "FOR UPDATE", "view-for-update"
	if g.chance(0.5) {
		lock, tag = "FOR UPDATE SKIP LOCKED", "view-skip-locked"
	}
	m := &genModule{name: "view", setup: `CREATE TABLE job (id int PRIMARY KEY, owner text);
INSERT INTO job VALUES (1, NULL), (2, NULL), (3, NULL);
CREATE VIEW next_job AS SELECT id FROM job WHERE owner IS NULL ORDER BY id LIMIT 1 ` + lock + `;
CREATE VIEW taken AS SELECT count(*) AS n FROM job WHERE owner IS NOT NULL;
CREATE VIEW low_job AS SELECT id, owner FROM job WHERE id <= 2;`}
	v := []string{"view"}
	m.ops = []genOp{
		{sql: "SELECT id FROM next_job", tags: []string{"view", tag}},
		{sql: "SELECT id FROM next_job", tx: true, tags: []string{"view", tag}},
		{sql: "UPDATE job SET owner = 'a{a}' WHERE id = (SELECT min(id) FROM job WHERE owner IS NULL) RETURNING id"},
		{sql: "UPDATE job SET owner = 'n{a}' WHERE id = (SELECT id FROM next_job) RETURNING id", tags: []string{"view", tag}},
		{sql: "SELECT n FROM taken", tags: v},
		{sql: "UPDATE low_job SET owner = 'v{a}' WHERE id = 2 AND owner IS NULL RETURNING id", tags: v},
		{sql: "SELECT id FROM job WHERE id = 1 FOR UPDATE NOWAIT", fail: true, tags: []string{"nowait"}},
		{sql: "SELECT id FROM job WHERE owner IS NULL ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED", tags: []string{"skip-locked"}},
		{sql: "SELECT string_agg(id || ':' || coalesce(owner, '-'), ',' ORDER BY id) FROM job"},
	}
	return m
}

func (g *generator) modForeignKey() *genModule {
	m := &genModule{name: "fk", setup: `CREATE TABLE parent (id int PRIMARY KEY, name text NOT NULL);
CREATE TABLE child (id int PRIMARY KEY, pid int REFERENCES parent ON DELETE CASCADE);
CREATE TABLE pledge (pid int, CONSTRAINT pledge_fk FOREIGN KEY (pid) REFERENCES parent DEFERRABLE INITIALLY DEFERRED);
CREATE TABLE seat (n int, CONSTRAINT seat_u UNIQUE (n) DEFERRABLE INITIALLY DEFERRED);
INSERT INTO parent VALUES (1, 'p1'), (2, 'p2');
INSERT INTO child VALUES (1, 1), (2, 2);
INSERT INTO seat VALUES (1), (2);`}
	c := []string{"fk-cascade"}
	d := []string{"deferred-constraint"}
	m.ops = []genOp{
		{sql: "INSERT INTO child VALUES (1{a}, 1)", fail: true, tags: c},
		{sql: "DELETE FROM parent WHERE id = 1", tags: c},
		{sql: "SELECT count(*) FROM child", tags: c},
		{sql: "INSERT INTO pledge VALUES (3)", fail: true, tags: d},
		{sql: "INSERT INTO parent VALUES (3, 'p3')", fail: true, tags: c},
		{sql: "DELETE FROM parent WHERE id = 3", tags: c},
		{sql: "UPDATE parent SET name = name || '{a}' WHERE id = 2 RETURNING name"},
		{sql: "SELECT name FROM parent WHERE id = 1 FOR KEY SHARE"},
		{sql: "UPDATE seat SET n = n + 1 WHERE n = 1 RETURNING n", fail: true, tags: d},
		{sql: "INSERT INTO seat VALUES (3)", fail: true, tags: d},
		{sql: "SET CONSTRAINTS ALL IMMEDIATE", tx: true, fail: true, tags: d},
		{sql: "SELECT count(*), count(DISTINCT pid) FROM pledge", tags: d},
	}
	return m
}

func (g *generator) modSequence() *genModule {
	m := &genModule{name: "sequence", setup: `CREATE SEQUENCE tick;
CREATE TABLE ticket (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, who text, twice int GENERATED ALWAYS AS (id * 2) STORED);`}
	m.ops = []genOp{
		{sql: "SELECT nextval('tick')", tags: []string{"nextval"}},
		{sql: "SELECT nextval('tick')", tags: []string{"nextval"}},
		{sql: "SELECT last_value FROM tick", tags: []string{"sequence-read"}},
		{sql: "SELECT last_value, is_called FROM tick", tags: []string{"sequence-read"}},
		{sql: "SELECT currval('tick')", fail: true, tags: []string{"currval"}},
		{sql: "SELECT pg_sequence_last_value('tick')", tags: []string{"pg_sequence_last_value"}},
		{sql: "INSERT INTO ticket (who) VALUES ('a{a}') RETURNING id, twice", tags: []string{"identity", "generated-column"}},
		{sql: "SELECT count(*), max(id), max(twice) FROM ticket", tags: []string{"identity", "generated-column"}},
		{sql: "SELECT last_value FROM ticket_id_seq", tags: []string{"identity", "sequence-read"}},
		{sql: "SELECT pg_sequence_last_value('ticket_id_seq')", tags: []string{"identity", "pg_sequence_last_value"}},
		{sql: "SELECT setval('tick', 10)", tags: []string{"setval"}},
		{sql: "INSERT INTO ticket (who) SELECT 'n' || nextval('tick') RETURNING id, who", tags: []string{"identity", "nextval"}},
	}
	return m
}

func (g *generator) modFunctions() *genModule {
	m := &genModule{name: "functions", setup: `CREATE TABLE tally (id int PRIMARY KEY, n int NOT NULL);
CREATE TABLE tally_log (k int);
INSERT INTO tally VALUES (1, 0), (2, 100);
CREATE FUNCTION bump(k int) RETURNS int LANGUAGE sql VOLATILE AS $$ UPDATE tally SET n = n + k WHERE id = 1 RETURNING n $$;
CREATE FUNCTION peek() RETURNS int LANGUAGE sql STABLE AS $$ SELECT n FROM tally WHERE id = 1 $$;
CREATE FUNCTION move(k int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE r int;
BEGIN
  UPDATE tally SET n = n - k WHERE id = 2 RETURNING n INTO r;
  INSERT INTO tally_log VALUES (k);
  RETURN r;
END $$;
CREATE FUNCTION logged() RETURNS bigint LANGUAGE plpgsql STABLE AS $$ BEGIN RETURN (SELECT count(*) FROM tally_log); END $$;
CREATE FUNCTION touch(t text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE r int;
BEGIN
  EXECUTE format('UPDATE %I SET n = n + 1 WHERE id = 2 RETURNING n', t) INTO r;
  RETURN r;
END $$;
CREATE VIEW tally_bumped AS SELECT bump(1) AS n;
CREATE TABLE stamp (n int DEFAULT peek(), k int);`}
	sqlw := []string{"sql-function", "writing-function"}
	m.ops = []genOp{
		{sql: "SELECT bump({a})", tags: sqlw},
		{sql: "SELECT peek()", tags: []string{"sql-function", "stable-function"}},
		{sql: "SELECT move({a})", tags: []string{"plpgsql-function", "writing-function"}},
		{sql: "SELECT logged()", tags: []string{"plpgsql-function", "stable-function"}},
		{sql: "SELECT touch('tally')", tags: []string{"plpgsql-function", "writing-function", "function-dynamic-sql"}},
		{sql: "SELECT n FROM tally_bumped", tags: append([]string{"view"}, sqlw...)},
		{sql: "UPDATE tally SET n = n * 2 WHERE id = 1 RETURNING n"},
		{sql: "SELECT n FROM tally WHERE id = 2"},
		{sql: "SELECT count(*), coalesce(sum(k), 0) FROM tally_log"},
		{sql: "INSERT INTO stamp (k) VALUES ({a}) RETURNING n", tags: []string{"sql-function", "stable-function", "function-default"}},
		{sql: "SELECT string_agg(id::text, ',' ORDER BY id) FROM tally WHERE n >= peek()", tags: []string{"sql-function", "stable-function"}},
	}
	return m
}

func (g *generator) modAdvisory() *genModule {
	m := &genModule{name: "advisory", setup: "CREATE TABLE res (id int PRIMARY KEY, holder text);\nINSERT INTO res VALUES (1, NULL);"}
	x := []string{"advisory-xact-lock"}
	s := []string{"advisory-try-lock"}
	m.ops = []genOp{
		{sql: "SELECT pg_advisory_xact_lock(42)", tx: true, tags: x},
		{sql: "SELECT pg_advisory_xact_lock(42)", tags: x},
		{sql: "SELECT pg_try_advisory_xact_lock(42)", tags: x},
		{sql: "SELECT pg_try_advisory_lock(42)", tags: s},
		{sql: "SELECT pg_try_advisory_lock(42)", tags: s},
		{sql: "SELECT pg_advisory_unlock(42)", tags: s},
		{sql: "UPDATE res SET holder = 'a{a}' WHERE id = 1 RETURNING holder"},
		{sql: "UPDATE res SET holder = 'a{a}' WHERE id = 1 AND pg_try_advisory_xact_lock(7) RETURNING holder", tags: x},
		{sql: "SELECT holder FROM res WHERE id = 1"},
	}
	return m
}

// modForeignKeyRows: rows of tables whose only triggers are foreign
// keys' (footprint/rowkey.go names their rows): a parent's row updated by
// key, its key changed, deleted (cascading or refused), locked in every
// mode; a child's row inserted, moved to another parent, deleted.
func (g *generator) modForeignKeyRows() *genModule {
	m := &genModule{name: "fkrows", setup: `CREATE TABLE owner (id int PRIMARY KEY, v int NOT NULL);
CREATE TABLE pet (id int PRIMARY KEY, oid int REFERENCES owner ON DELETE CASCADE);
CREATE TABLE toy (id int PRIMARY KEY, pid int REFERENCES pet);
INSERT INTO owner VALUES (1, 0), (2, 0), (3, 0);
INSERT INTO pet VALUES (1, 1), (2, 2);
INSERT INTO toy VALUES (1, 1);`}
	f := []string{"fk-rows"}
	m.ops = []genOp{
		{sql: "UPDATE owner SET v = v + {a} WHERE id = 1 RETURNING v", tags: f},
		{sql: "UPDATE owner SET v = v * 2 WHERE id = 2 RETURNING v", tags: f},
		{sql: "UPDATE owner SET id = 4 WHERE id = 3 RETURNING id", fail: true, tags: f},
		{sql: "UPDATE owner SET id = 5 WHERE id = 2 RETURNING id", fail: true, tags: f},
		{sql: "DELETE FROM owner WHERE id = 2 RETURNING v", fail: true, tags: f},
		{sql: "SELECT v FROM owner WHERE id = 2 FOR UPDATE", tags: f},
		{sql: "SELECT v FROM owner WHERE id = 1 FOR NO KEY UPDATE", tags: f},
		{sql: "SELECT v FROM owner WHERE id = 3 FOR UPDATE NOWAIT", fail: true, tags: f},
		{sql: "INSERT INTO pet VALUES (1{a}, 3)", fail: true, tags: f},
		{sql: "INSERT INTO pet (id, oid) VALUES (2{a}, 2) RETURNING id", fail: true, tags: f},
		{sql: "INSERT INTO toy (pid, id) VALUES (1, 2{a})", fail: true, tags: f},
		{sql: "INSERT INTO pet (oid, id) VALUES (1, 3{a})", fail: true, tags: f},
		{sql: "UPDATE pet SET oid = 3 WHERE id = 1 RETURNING oid", fail: true, tags: f},
		{sql: "DELETE FROM pet WHERE id = 2 RETURNING oid", fail: true, tags: f},
		{sql: "INSERT INTO toy VALUES (1{a}, 2)", fail: true, tags: f},
		{sql: "SELECT count(*) FROM pet WHERE oid = 2", tags: f},
		{sql: "SELECT oid FROM pet WHERE id = 2 FOR KEY SHARE", tags: f},
	}
	return m
}

// modDeadlock: two rows that transactions update or lock in either order
// (deadlocks, two or three around), and a table beside them that a
// deadlocked transaction reads or writes after its deadlock, so that which
// victim PostgreSQL picks decides what a snapshot taken before the
// deadlock sees (case deadlock-victim-snapshot). Drawn from a stream of
// its own; most of its actors focus on it.
func (g *generator) modDeadlock() *genModule {
	g.tag("deadlock-shape")
	m := &genModule{name: "deadlock", setup: `CREATE TABLE dl (id int PRIMARY KEY, n int NOT NULL);
INSERT INTO dl VALUES (1, 0), (2, 0), (3, 0);
CREATE TABLE seen (w int NOT NULL);
INSERT INTO seen VALUES (0);`}
	d := []string{"deadlock-shape"}
	m.ops = []genOp{
		{sql: "UPDATE dl SET n = n + {a} WHERE id = 1 RETURNING n", tags: d},
		{sql: "UPDATE dl SET n = n + {a} WHERE id = 2 RETURNING n", tags: d},
		{sql: "UPDATE dl SET n = n * 2 WHERE id = 3 RETURNING n", tags: d},
		{sql: "SELECT n FROM dl WHERE id = 1 FOR UPDATE", tags: d},
		{sql: "SELECT n FROM dl WHERE id = 2 FOR SHARE", tags: d},
		{sql: "SELECT sum(n) FROM dl", tags: d},
		{sql: "SELECT w FROM seen", tags: d},
		{sql: "UPDATE seen SET w = w + {a} RETURNING w", tags: d},
		{sql: "UPDATE dl SET n = n + 1 WHERE id = 2; UPDATE dl SET n = n + 1 WHERE id = 1", tags: d},
	}
	return m
}

// modTraps: the shapes three reviews of 4 December found holes with,
// none of which the generator wrote before: a table that references
// itself, ON DELETE SET DEFAULT, a deferred foreign key, an UPDATE
// through a view that renames the key, FOR UPDATE OF, a sublink under
// FOR UPDATE, a count over a locked subquery, a join that locks one row
// and waits for another, DISCARD ALL beside session advisory locks.
func (g *generator) modTraps() *genModule {
	g.tag("traps")
	m := &genModule{name: "traps", setup: `CREATE TABLE acc (id int PRIMARY KEY, bal int NOT NULL);
INSERT INTO acc VALUES (1, 10), (2, 10), (3, 10);
CREATE TABLE emp (id int PRIMARY KEY, boss int REFERENCES emp ON DELETE SET NULL);
INSERT INTO emp VALUES (3, NULL), (1, 3), (2, 3);
CREATE TABLE hold (id int PRIMARY KEY, acc int DEFAULT 1 REFERENCES acc ON DELETE SET DEFAULT);
INSERT INTO hold VALUES (1, 2);
CREATE TABLE lien (id int PRIMARY KEY, acc int REFERENCES acc DEFERRABLE INITIALLY DEFERRED);
INSERT INTO lien VALUES (1, 3);
CREATE VIEW accv AS SELECT id AS k, bal FROM acc;
CREATE TABLE tu (id int PRIMARY KEY, w int NOT NULL);
INSERT INTO tu VALUES (1, 0), (2, 0);`}
	fk, lk, ad := []string{"traps", "fk-traps"}, []string{"traps", "lock-traps"}, []string{"traps", "advisory-traps"}
	m.ops = []genOp{
		{sql: "DELETE FROM acc WHERE id = 2 RETURNING bal", fail: true, tags: fk},
		{sql: "DELETE FROM acc WHERE id = 3 RETURNING bal", fail: true, tags: fk},
		{sql: "SELECT bal FROM acc WHERE id = 1 FOR UPDATE NOWAIT", fail: true, tags: fk},
		{sql: "UPDATE acc SET bal = bal + {a} WHERE id = 1 RETURNING bal", tags: fk},
		{sql: "INSERT INTO lien (id, acc) VALUES (1{a}, 1)", fail: true, tags: fk},
		{sql: "INSERT INTO lien (id, acc) VALUES (2{a}, 2)", fail: true, tags: fk},
		{sql: "UPDATE accv SET k = 4 WHERE k = 2 RETURNING bal", fail: true, tags: fk},
		{sql: "SELECT bal FROM acc WHERE id = 4", tags: fk},
		{sql: "SELECT acc FROM hold WHERE id = 1", tags: fk},
		{sql: "UPDATE emp SET boss = 2 WHERE id = 1 RETURNING boss", fail: true, tags: fk},
		{sql: "DELETE FROM emp WHERE id = 3 RETURNING id", tags: fk},
		{sql: "DELETE FROM emp WHERE id = 2 RETURNING id", fail: true, tags: fk},
		{sql: "SELECT boss FROM emp WHERE id = 1", tags: fk},
		{sql: "SELECT a.bal FROM acc a JOIN tu ON tu.id = a.id WHERE a.id = 1 FOR UPDATE OF tu", tags: lk},
		{sql: "SELECT tu.w, (SELECT bal FROM acc WHERE id = 1) AS bal FROM tu WHERE tu.id = 1 FOR UPDATE", tags: lk},
		{sql: "SELECT count(*) FROM (SELECT bal FROM acc WHERE id = 2 FOR UPDATE) s", tags: lk},
		{sql: "UPDATE tu SET w = w * 2 + {a} WHERE id = 1 RETURNING w", tags: lk},
		{sql: "SELECT z.w, a.bal FROM tu z, acc a WHERE z.id = 2 AND a.id = 1 FOR UPDATE", tags: lk},
		{sql: "UPDATE tu SET w = w + 1 WHERE id = 2 RETURNING w", tags: lk},
		{sql: "SELECT pg_try_advisory_lock(9)", tags: ad},
		{sql: "DISCARD ALL", fail: true, tags: ad}, // 25001 in a transaction block
		{sql: "SELECT id FROM tu WHERE id = 1 AND pg_try_advisory_lock(9)", tags: ad},
	}
	return m
}

// modConstraints: what a unit waits for or fails on that no row key
// names: an exclusion constraint (an insert waits for an uncommitted
// overlapping range), MERGE (matched or not, by the snapshot and then by
// the row it locks), a unique constraint checked only at COMMIT.
func (g *generator) modConstraints() *genModule {
	m := &genModule{name: "constraints", setup: `CREATE TABLE bk (id int PRIMARY KEY, during int4range NOT NULL, EXCLUDE USING gist (during WITH &&));
INSERT INTO bk VALUES (1, '[1,3)');
CREATE TABLE inv (sku int PRIMARY KEY, n int NOT NULL);
INSERT INTO inv VALUES (1, 5), (2, 0);
CREATE TABLE tag (k int UNIQUE DEFERRABLE INITIALLY DEFERRED, v int NOT NULL);
INSERT INTO tag VALUES (1, 0);`}
	x, mg, d := []string{"exclusion"}, []string{"merge"}, []string{"deferred-unique"}
	m.ops = []genOp{
		{sql: "INSERT INTO bk VALUES (1{a}, '[2,4)') RETURNING id", fail: true, tags: x},
		{sql: "INSERT INTO bk VALUES (2{a}, int4range({a}0, {a}1)) RETURNING id", fail: true, tags: x},
		{sql: "INSERT INTO bk VALUES (3{a}, '[5,6)') RETURNING id", fail: true, tags: x},
		{sql: "DELETE FROM bk WHERE id = 1 RETURNING during", tags: x},
		{sql: "UPDATE bk SET during = '[5,7)' WHERE id = 1 RETURNING id", fail: true, tags: x},
		{sql: "SELECT count(*) FROM bk WHERE during && '[0,8)'", tags: x},
		{sql: "MERGE INTO inv s USING (VALUES (1, {a})) v(sku, d) ON s.sku = v.sku WHEN MATCHED AND s.n >= v.d THEN UPDATE SET n = s.n - v.d WHEN NOT MATCHED THEN INSERT VALUES (v.sku, v.d)", fail: true, tags: mg},
		{sql: "MERGE INTO inv s USING (SELECT 3 AS sku) v ON s.sku = v.sku WHEN MATCHED THEN UPDATE SET n = s.n + 1 WHEN NOT MATCHED THEN INSERT VALUES (3, {a})", fail: true, tags: mg},
		{sql: "MERGE INTO inv s USING (SELECT 2 AS sku) v ON s.sku = v.sku WHEN MATCHED AND s.n > 0 THEN DELETE WHEN MATCHED THEN UPDATE SET n = s.n + 1", fail: true, tags: mg},
		{sql: "SELECT n FROM inv WHERE sku = 2", tags: mg},
		{sql: "UPDATE inv SET n = n + {a} WHERE sku = 2 RETURNING n", tags: mg},
		{sql: "SELECT count(*), sum(n) FROM inv", tags: mg},
		{sql: "INSERT INTO tag VALUES (2, {a})", fail: true, tags: d},
		{sql: "UPDATE tag SET k = k + 1 RETURNING k", fail: true, tags: d},
		{sql: "UPDATE tag SET v = v + {a} WHERE k = 1 RETURNING v", tags: d},
		{sql: "SELECT count(*), sum(v) FROM tag", tags: d},
	}
	return m
}

// modUnique: writes of different keys that meet anyway: a unique column
// beside the primary key (an insert waits for another's uncommitted
// insert of the same value, then fails or not), ON CONFLICT on a
// constraint, on an expression index and on a partial unique index, a
// compound key, a delete and an insert of the same key, MERGE, and keyed
// updates of several rows through a data-modifying CTE. Drawn from side4.
func (g *generator) modUnique() *genModule {
	g.tag("unique-keys")
	m := &genModule{name: "unique", setup: `CREATE TABLE usr (id int PRIMARY KEY, email text NOT NULL UNIQUE, n int NOT NULL DEFAULT 0);
INSERT INTO usr VALUES (1, 'a', 0), (2, 'b', 0);
CREATE TABLE booking (day int, room int, who int NOT NULL, PRIMARY KEY (day, room));
INSERT INTO booking VALUES (1, 1, 0);
CREATE TABLE tok (id int PRIMARY KEY, code int NOT NULL, live bool NOT NULL DEFAULT true);
CREATE UNIQUE INDEX tok_live ON tok (code) WHERE live;
INSERT INTO tok VALUES (1, 7, true);
CREATE TABLE nm (id int PRIMARY KEY, name text NOT NULL);
CREATE UNIQUE INDEX nm_lower ON nm (lower(name));
INSERT INTO nm VALUES (1, 'Ann');`}
	u := []string{"unique-keys"}
	m.ops = []genOp{
		{sql: "INSERT INTO usr (id, email) VALUES (1{a}, 'x') RETURNING id", fail: true, tags: u},
		{sql: "INSERT INTO usr (id, email) VALUES (2{a}, 'x') ON CONFLICT DO NOTHING RETURNING id", fail: true, tags: u},
		{sql: "INSERT INTO usr (id, email) VALUES (3, 'y{a}') ON CONFLICT (id) DO UPDATE SET n = usr.n + {a} RETURNING n", fail: true, tags: u},
		{sql: "INSERT INTO usr (id, email) VALUES (4{a}, 'a') ON CONFLICT (email) DO UPDATE SET n = usr.n + {a} RETURNING id, n", fail: true, tags: u},
		{sql: "UPDATE usr SET email = 'x' WHERE id = 2 RETURNING id", fail: true, tags: u},
		{sql: "UPDATE usr SET email = 'a{a}' WHERE id = 1 RETURNING email", fail: true, tags: u},
		{sql: "DELETE FROM usr WHERE id = 1 RETURNING email", tags: u},
		{sql: "SELECT id FROM usr WHERE email = 'x'", tags: u},
		{sql: "SELECT n, email FROM usr WHERE id = 1", tags: u},
		{sql: "SELECT count(*), sum(n) FROM usr", tags: u},
		{sql: "WITH w AS (UPDATE usr SET n = n + {a} WHERE id IN (1, 2) RETURNING n) SELECT count(*), sum(n) FROM w", tags: u},
		{sql: "WITH w AS (UPDATE usr SET n = n * 2 WHERE id = ANY('{2,3}'::int[]) RETURNING n) SELECT count(*), sum(n) FROM w", tags: u},
		{sql: "DELETE FROM usr WHERE id = 2; INSERT INTO usr (id, email) VALUES (2, 'b{a}')", fail: true, tags: u},
		{sql: "MERGE INTO usr t USING (VALUES (5, 'x')) v(id, email) ON t.id = v.id WHEN MATCHED THEN UPDATE SET n = t.n + 1 WHEN NOT MATCHED THEN INSERT (id, email) VALUES (v.id, v.email)", fail: true, tags: u},
		{sql: "INSERT INTO booking VALUES (1, 2, {a}) ON CONFLICT DO NOTHING RETURNING who", tags: u},
		{sql: "INSERT INTO booking VALUES (1, 1, {a}) ON CONFLICT (day, room) DO UPDATE SET who = booking.who + {a} WHERE booking.who < 3 RETURNING who", tags: u},
		{sql: "UPDATE booking SET who = {a} WHERE day = 1 AND room = 1 RETURNING who", tags: u},
		{sql: "DELETE FROM booking WHERE (day, room) = (1, 1) RETURNING who", tags: u},
		{sql: "SELECT string_agg(who::text, ',' ORDER BY room) FROM booking WHERE day = 1", tags: u},
		{sql: "MERGE INTO booking s USING (SELECT 1 AS day, 2 AS room) v ON s.day = v.day AND s.room = v.room WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT VALUES (1, 2, {a})", fail: true, tags: u},
		{sql: "INSERT INTO tok VALUES (2{a}, 7) RETURNING id", fail: true, tags: u},
		{sql: "UPDATE tok SET live = false WHERE id = 1 RETURNING code", tags: u},
		{sql: "UPDATE tok SET code = 8 WHERE id = 1 RETURNING code", fail: true, tags: u},
		{sql: "SELECT count(*) FROM tok WHERE code = 7 AND live", tags: u},
		{sql: "INSERT INTO nm VALUES (2{a}, 'ANN') RETURNING id", fail: true, tags: u},
		{sql: "INSERT INTO nm VALUES (3{a}, 'bo') ON CONFLICT (lower(name)) DO NOTHING RETURNING id", tags: u},
		{sql: "UPDATE nm SET name = 'Bo' WHERE id = 1 RETURNING name", fail: true, tags: u},
		{sql: "SELECT count(*) FROM nm WHERE lower(name) = 'bo'", tags: u},
	}
	return m
}

// modRelationLocks: locks on whole tables and what takes them: LOCK TABLE
// in several modes (NOWAIT too), TRUNCATE (which a REPEATABLE READ
// snapshot taken before it does not see), ALTER TABLE, CREATE INDEX,
// REFRESH MATERIALIZED VIEW, a lock taken FOR SHARE then upgraded, SKIP
// LOCKED, and a data-modifying CTE that moves a row between tables. Drawn
// from side4.
func (g *generator) modRelationLocks() *genModule {
	g.tag("relation-locks")
	m := &genModule{name: "relation-locks", setup: `CREATE TABLE led (id int PRIMARY KEY, amt int NOT NULL);
INSERT INTO led VALUES (1, 5), (2, 5);
CREATE TABLE aux (id int PRIMARY KEY, v int NOT NULL);
INSERT INTO aux VALUES (1, 0);
CREATE MATERIALIZED VIEW led_sum AS SELECT sum(amt) AS s FROM led;`}
	l := []string{"relation-locks"}
	m.ops = []genOp{
		{sql: "LOCK TABLE led IN SHARE MODE", tx: true, tags: l},
		{sql: "LOCK TABLE led IN SHARE ROW EXCLUSIVE MODE", tx: true, tags: l},
		{sql: "LOCK TABLE led IN EXCLUSIVE MODE NOWAIT", tx: true, fail: true, tags: l},
		{sql: "LOCK TABLE aux IN ACCESS EXCLUSIVE MODE", tx: true, tags: l},
		{sql: "TRUNCATE aux", tags: l},
		{sql: "INSERT INTO aux VALUES (1{a}, {a}) RETURNING id", fail: true, tags: l},
		{sql: "SELECT count(*), coalesce(sum(v), 0) FROM aux", tags: l},
		{sql: "UPDATE led SET amt = amt + {a} WHERE id = 1 RETURNING amt", tags: l},
		{sql: "SELECT amt FROM led WHERE id = 2", tags: l},
		{sql: "SELECT sum(amt) FROM led", tags: l},
		{sql: "SELECT amt FROM led WHERE id = 1 FOR SHARE", tags: l},
		{sql: "UPDATE led SET amt = amt - 1 WHERE id = 1 RETURNING amt", tags: l},
		{sql: "SELECT amt FROM led WHERE id = 1 FOR UPDATE NOWAIT", fail: true, tags: l},
		{sql: "SELECT id FROM led ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED", tags: l},
		{sql: "ALTER TABLE aux ADD COLUMN IF NOT EXISTS w int", fail: true, tags: l},
		{sql: "ALTER TABLE led ADD CONSTRAINT led_pos CHECK (amt > 0) NOT VALID", fail: true, tags: l},
		{sql: "CREATE INDEX IF NOT EXISTS led_amt ON led (amt)", fail: true, tags: l},
		{sql: "REFRESH MATERIALIZED VIEW led_sum", fail: true, tags: l},
		{sql: "SELECT s FROM led_sum", tags: l},
		{sql: "WITH d AS (DELETE FROM aux WHERE id = 1 RETURNING v) INSERT INTO led SELECT 3{a}, v FROM d RETURNING id", fail: true, tags: l},
	}
	return m
}

// modHidden: code no plan prints and the clock (the reviews of the
// evening of 4 December): an IMMUTABLE function that reads a table
// (folded while planning), a view that calls it, calls in a VALUES list
// and a LIMIT, nextval in a multi-row VALUES, and times read by actors
// and compared (kept in a schema of their own, outside the behaviour's
// digest of public: their values change with every attempt, their
// order does not). Drawn from side4.
func (g *generator) modHidden() *genModule {
	g.tag("hidden-code")
	m := &genModule{name: "hidden", schemas: []string{"hx"}, setup: `CREATE SCHEMA hx;
CREATE TABLE hx.stamp (who int PRIMARY KEY, t timestamptz NOT NULL);
CREATE TABLE cfgv (id int PRIMARY KEY, v int NOT NULL);
INSERT INTO cfgv VALUES (1, 0);
CREATE FUNCTION cfg_now() RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT v FROM cfgv WHERE id = 1';
CREATE FUNCTION bump_cfg() RETURNS int LANGUAGE sql AS 'UPDATE cfgv SET v = v + 1 WHERE id = 1 RETURNING v';
CREATE VIEW cfg_view AS SELECT cfg_now() AS c;
CREATE SEQUENCE hseq;
CREATE TABLE hitems (id bigint PRIMARY KEY, what text);`}
	h := []string{"hidden-code"}
	m.ops = []genOp{
		{sql: "INSERT INTO hx.stamp VALUES ({a}, now()) ON CONFLICT (who) DO UPDATE SET t = now()", tags: h},
		{sql: "INSERT INTO hx.stamp VALUES (1{a}, statement_timestamp()) ON CONFLICT DO NOTHING", tags: h},
		{sql: "SELECT count(*) FROM hx.stamp a JOIN hx.stamp b ON a.t < b.t WHERE a.who = 1 AND b.who = 2", tags: h},
		{sql: "SELECT count(*) FROM hx.stamp a JOIN hx.stamp b ON a.t < b.t WHERE a.who = 11 AND b.who = 12", tags: h},
		{sql: "SELECT cfg_now()", tags: h},
		{sql: "SELECT c FROM cfg_view", tags: h},
		{sql: "UPDATE cfgv SET v = v + {a} WHERE id = 1 RETURNING v", tags: h},
		{sql: "SELECT count(*) FROM (VALUES (bump_cfg()), (0)) v(x)", tags: h},
		{sql: "SELECT count(*) FROM (SELECT 1 LIMIT bump_cfg()) s", tags: h},
		{sql: "INSERT INTO hitems VALUES (nextval('hseq'), 'a{a}'), (nextval('hseq'), 'b{a}')", tags: h},
		{sql: "SELECT nextval('hseq')", tags: h},
		{sql: "SELECT count(*), coalesce(sum(id), 0) FROM hitems", tags: h},
	}
	return m
}

// modCreateTable: actors create tables (engine/trace.go classifies an
// attempt whose only schema changes are plain CREATE TABLEs): the same
// table twice, a table that shadows another through search_path, a table
// that references another; and statements that use them before they
// exist, look them up in the catalogs, or use the table they shadow.
func (g *generator) modCreateTable() *genModule {
	m := &genModule{name: "create", schemas: []string{"side"}, setup: `CREATE SCHEMA side;
CREATE TABLE reg (id int PRIMARY KEY, v int NOT NULL);
INSERT INTO reg VALUES (1, 0), (2, 0);`}
	d := []string{"create-table"}
	unqualified := []genOp{
		{sql: "SELECT v FROM reg WHERE id = 1", tags: d},
		{sql: "UPDATE reg SET v = v + {a} WHERE id = 1 RETURNING v", tags: d},
		{sql: "INSERT INTO reg VALUES (1, {a}) ON CONFLICT (id) DO UPDATE SET v = reg.v * 2 RETURNING v", tags: d},
	}
	m.ops = append([]genOp{
		{sql: "CREATE TABLE IF NOT EXISTS made (id int PRIMARY KEY, v int)", fail: true, tags: d},
		{sql: "CREATE TABLE made (id int PRIMARY KEY, v int)", fail: true, tags: d},
		{sql: "CREATE TABLE made_{a} (id int REFERENCES reg)", fail: true, tags: d},
		{sql: "CREATE TABLE IF NOT EXISTS side.reg (id int PRIMARY KEY, v int NOT NULL)", fail: true, tags: d},
		{sql: "INSERT INTO made VALUES ({a}, 1) ON CONFLICT (id) DO UPDATE SET v = made.v + 1 RETURNING v", fail: true, tags: d},
		{sql: "SELECT count(*), sum(v) FROM made", fail: true, tags: d},
		{sql: "INSERT INTO made_1 VALUES (2)", fail: true, tags: d},
		{sql: "SELECT to_regclass('made') IS NOT NULL, to_regclass('side.reg') IS NOT NULL", tags: d},
		{sql: "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'made%'", tags: d},
		{sql: "SELECT count(*) FROM information_schema.tables WHERE table_name = 'reg'", tags: d},
		{sql: "UPDATE public.reg SET v = v - 1 WHERE id = 1 RETURNING v", tags: d},
		{sql: "DELETE FROM public.reg WHERE id = 2 RETURNING v", fail: true, tags: d},
		{sql: "SELECT count(*) FROM side.reg", fail: true, tags: d},
	}, unqualified...)
	m.preludes = []genOp{{sql: "SET search_path = side, public", tags: d, follow: unqualified}}
	return m
}

func (g *generator) modSearchPath() *genModule {
	m := &genModule{name: "schemas", schemas: []string{"other"}, setup: `CREATE SCHEMA other;
CREATE TABLE public.stock (id int PRIMARY KEY, n int NOT NULL);
CREATE TABLE other.stock (id int PRIMARY KEY, n int NOT NULL);
INSERT INTO public.stock VALUES (1, 0);
INSERT INTO other.stock VALUES (1, 100);`}
	sp := []string{"search-path"}
	unqualified := []genOp{
		{sql: "UPDATE stock SET n = n + {a} WHERE id = 1 RETURNING n", tags: sp},
		{sql: "SELECT n FROM stock WHERE id = 1", tags: sp},
		{sql: "INSERT INTO stock VALUES (2, {a})", fail: true, tags: sp},
		{sql: "SELECT n FROM stock WHERE id = 1 FOR UPDATE", tags: sp},
		{sql: "DELETE FROM stock WHERE id = 2", tags: sp},
	}
	m.ops = append([]genOp{
		{sql: "UPDATE other.stock SET n = n * 2 WHERE id = 1 RETURNING n"},
		{sql: "SELECT n FROM other.stock WHERE id = 1"},
		{sql: "SELECT count(*), sum(n) FROM other.stock"},
		{sql: "UPDATE public.stock SET n = n - 1 WHERE id = 1 RETURNING n"},
		{sql: "SELECT count(*), sum(n) FROM public.stock"},
		{sql: "INSERT INTO other.stock VALUES (2, 2)", fail: true},
	}, unqualified...)
	m.preludes = []genOp{
		{sql: "SET search_path TO other", tags: sp, follow: unqualified},
		{sql: "SET search_path = other, public", tags: sp, follow: unqualified},
		{sql: "SELECT set_config('search_path', 'other, public', false)", tags: sp, follow: unqualified},
	}
	return m
}

func (g *generator) modRowSecurity() *genModule {
	m := &genModule{name: "rls", roles: true, setup: `CREATE TABLE doc (id int PRIMARY KEY, owner text NOT NULL, v int NOT NULL);
INSERT INTO doc VALUES (1, '` + genRoleA + `', 0), (2, '` + genRoleB + `', 0), (3, '` + genRoleA + `', 0);
ALTER TABLE doc ENABLE ROW LEVEL SECURITY;
CREATE POLICY doc_read ON doc FOR SELECT USING (true);
CREATE POLICY doc_write ON doc FOR UPDATE USING (owner = current_user);
CREATE POLICY doc_ins ON doc FOR INSERT WITH CHECK (owner = current_user);
CREATE POLICY doc_del ON doc FOR DELETE USING (owner = current_user);`}
	t := []string{"set-role-rls"}
	asRole := []genOp{
		{sql: "WITH u AS (UPDATE doc SET v = v + {a} RETURNING id) SELECT string_agg(id::text, ',' ORDER BY id) FROM u", tags: t},
		{sql: "INSERT INTO doc VALUES (1{a}, current_user, {a})", fail: true, tags: t},
		{sql: "WITH d AS (DELETE FROM doc WHERE v > 0 RETURNING id) SELECT string_agg(id::text, ',' ORDER BY id) FROM d", tags: t},
		{sql: "UPDATE doc SET v = 10 WHERE id = 2 RETURNING v", tags: t},
	}
	m.ops = append([]genOp{
		{sql: "SELECT count(*), sum(v) FROM doc", tags: t},
		{sql: "SELECT v FROM doc WHERE id = 1 FOR UPDATE", tags: t},
	}, asRole...)
	m.preludes = []genOp{
		{sql: "SET ROLE {role}", tags: t, follow: asRole},
		{sql: "SET SESSION ROLE {role}", tags: t, follow: asRole},
	}
	return m
}

// goArgs writes a step's parameters as Go literals.
func goArgs(args []any) string {
	var parts []string
	for _, a := range args {
		switch v := a.(type) {
		case string:
			parts = append(parts, strconv.Quote(v))
		case int64:
			parts = append(parts, "int64("+strconv.FormatInt(v, 10)+")")
		default:
			parts = append(parts, fmt.Sprintf("%#v", v))
		}
	}
	return strings.Join(parts, ", ")
}

// GoSource is c written as a Go literal for bench/cases.go.
func GoSource(c Case) string {
	var b strings.Builder
	fmt.Fprintf(&b, "{Name: %q, Setup: `%s`,\n\tActors: [][]Step{\n", c.Name, c.Setup)
	for _, steps := range c.Actors {
		b.WriteString("\t\t{")
		for i, s := range steps {
			if i > 0 {
				b.WriteString(", ")
			}
			switch {
			case len(s.Args) > 0:
				fmt.Fprintf(&b, "{SQL: %s, Simple: %v, Retry: %v, Keep: %v, Args: []any{%s}}", strconv.Quote(s.SQL), s.Simple, s.Retry, s.Keep, goArgs(s.Args))
			case s.Simple && !s.Keep && !s.Retry:
				fmt.Fprintf(&b, "simple(%s)", strconv.Quote(s.SQL))
			case s.Keep && !s.Simple && !s.Retry:
				fmt.Fprintf(&b, "keep(%s)", strconv.Quote(s.SQL))
			case !s.Keep && !s.Simple && !s.Retry:
				fmt.Fprintf(&b, "q(%s)", strconv.Quote(s.SQL))
			default:
				fmt.Fprintf(&b, "{SQL: %s, Simple: %v, Retry: %v, Keep: %v}", strconv.Quote(s.SQL), s.Simple, s.Retry, s.Keep)
			}
		}
		b.WriteString("},\n")
	}
	b.WriteString("\t}},")
	return b.String()
}
