package footprint

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
)

// Cache holds statement footprints by SQL text, shared by every worker of a
// run: their databases have the same schema after setup.
type Cache struct {
	mu    sync.Mutex
	stmts map[string][]Statement
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{stmts: map[string][]Statement{}} }

func (c *Cache) get(sql string) ([]Statement, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.stmts[sql]
	return s, ok
}

func (c *Cache) put(sql string, s []Statement) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.stmts) < maxCached {
		c.stmts[sql] = s
	}
}

// maxCached bounds the cache; past it, statements are classified again.
const maxCached = 1 << 16

// Classifier classifies statements on one connection to an attempt's
// database (between attempts, never while actors run). It is not safe for
// concurrent use.
type Classifier struct {
	conn  *pgx.Conn
	cache *Cache
	// staged holds what this classifier classified until Keep: an
	// attempt whose statements ran against catalogs other than the
	// setup's must not leave its classifications to later attempts
	// (case other-drop-trigger-cached).
	staged  map[string][]Statement
	catalog *catalog
	session string // the SessionState the connection is in (its key)
	own     own
	roles   map[string]map[string]string // roleSettings by user
	created []string                     // AfterCreating
	schemas []string                     // every schema, once read (namedEverywhere)
	resets  map[string]string            // settings enter changed, with their values before
}

// NewClassifier classifies on conn, sharing cache: it reads the cache at
// once, and adds to it only at Keep.
func NewClassifier(conn *pgx.Conn, cache *Cache) *Classifier {
	return &Classifier{conn: conn, cache: cache, staged: map[string][]Statement{}}
}

// Keep adds what the classifier classified to the shared cache: the caller
// found that every statement ran against the catalogs it was classified
// against.
func (c *Classifier) Keep() {
	for k, s := range c.staged {
		c.cache.put(k, s)
	}
	clear(c.staged)
}

func (c *Classifier) cached(key string) ([]Statement, bool) {
	if s, ok := c.staged[key]; ok {
		return s, true
	}
	return c.cache.get(key)
}

func (c *Classifier) stage(key string, s []Statement) {
	if len(c.staged) < maxCached {
		c.staged[key] = s
	}
}

// SessionState is what a statement's meaning depends on in the session that ran
// it, beyond its text: the statements that put the classifier's connection
// in the same state (SET ROLE, the search_path from the start-up packet,
// the database's and role's defaults, and the session's own SETs), in the
// order they took effect. The zero Session is the classifier connection's
// own state.
type SessionState struct {
	Setup []string
	// Unknown says why the session's state cannot be reproduced (a
	// function that may have changed it, a ROLLBACK TO SAVEPOINT that
	// undid a SET): every statement is then Global.
	Unknown string
	// resets are the settings Setup gives values that leave must RESET
	// (Vals.Other).
	resets []string
}

func (s SessionState) key() string {
	if len(s.Setup) == 0 {
		return ""
	}
	return strings.Join(s.Setup, "\x00") + "\x01"
}

// Classify returns the footprints of the statements in sql (a simple
// Query's string may hold several), as the classifier connection's own
// session would run them.
func (c *Classifier) Classify(ctx context.Context, sql string) []Statement {
	return c.ClassifyIn(ctx, SessionState{}, sql)
}

// ClassifyIn returns the footprints of the statements in sql as session
// sess would run them: names resolve in its search_path and role.
func (c *Classifier) ClassifyIn(ctx context.Context, sess SessionState, sql string) []Statement {
	if sess.Unknown != "" {
		stmts, ok := lex(sql)
		if !ok || len(stmts) == 0 {
			return c.ClassifyIn(ctx, SessionState{}, sql)
		}
		// Transaction control and SET still mean what they say; anything
		// that resolves a name is not known.
		var out []Statement
		for _, ts := range stmts {
			st := c.statement(ctx, ts, "", false, true)
			if st.Kind == DML {
				st = codeFree("the session's state is not known: " + sess.Unknown)
			}
			out = append(out, st)
		}
		return out
	}
	key := sess.key() + sql
	if s, ok := c.cached(key); ok {
		return s
	}
	if len(sess.Setup) > 0 {
		if err := c.enter(ctx, sess); err != nil {
			c.leave(ctx)
			out := []Statement{global("the actor's session could not be reproduced: " + err.Error())}
			if ctx.Err() == nil {
				c.stage(key, out)
			}
			return out
		}
		defer c.leave(ctx)
	}
	stmts, ok := lex(sql)
	var out []Statement
	switch {
	case !ok:
		out = []Statement{global("the SQL text does not lex")}
	case len(stmts) == 0:
		out = []Statement{{Kind: Session}} // an empty query
	default:
		for _, ts := range stmts {
			out = append(out, c.statement(ctx, ts, sql, len(stmts) == 1, false))
		}
	}
	if ctx.Err() == nil {
		c.stage(key, out)
	}
	return out
}

// enter puts the classifier's connection in sess's state.
func (c *Classifier) enter(ctx context.Context, sess SessionState) error {
	c.resets = map[string]string{}
	for _, k := range sess.resets {
		was, err := c.currentSetting(ctx, k)
		if err != nil {
			return err
		}
		c.resets[k] = was
	}
	for _, q := range sess.Setup {
		if _, err := c.conn.Exec(ctx, q); err != nil {
			return firstLine(err)
		}
	}
	c.session = sess.key()
	return nil
}

// leave puts the classifier's connection back in its own state.
func (c *Classifier) leave(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	_, _ = c.conn.Exec(ctx, "RESET SESSION AUTHORIZATION")
	_, _ = c.conn.Exec(ctx, "RESET ROLE")
	_, _ = c.conn.Exec(ctx, "RESET search_path")
	for k, was := range c.resets {
		_, _ = c.conn.Exec(ctx, "SELECT set_config($1, $2, false)", k, was)
	}
	c.resets = nil
	c.session = ""
}

// txEndTail reads what follows COMMIT, END, ROLLBACK or ABORT: ok when it
// is [WORK | TRANSACTION] [AND [NO] CHAIN], and whether it chains.
func txEndTail(ts []token) (chain, ok bool) {
	w := make([]string, 0, len(ts))
	for _, t := range ts {
		if t.kind != tokWord {
			return false, false
		}
		w = append(w, t.text)
	}
	if len(w) > 0 && (w[0] == "work" || w[0] == "transaction") {
		w = w[1:]
	}
	switch {
	case len(w) == 0:
		return false, true
	case len(w) == 2 && w[0] == "and" && w[1] == "chain":
		return true, true
	case len(w) == 3 && w[0] == "and" && w[1] == "no" && w[2] == "chain":
		return false, true
	}
	return false, false
}

// statement classifies one statement; whole is the text when it is the only
// statement (the planner is asked about it).
func (c *Classifier) statement(ctx context.Context, ts []token, whole string, single, noPlan bool) Statement {
	w := words(ts, 4)
	if len(w) == 0 {
		return global("the statement does not start with a keyword")
	}
	switch w[0] {
	case "begin", "start":
		if w[0] == "start" && (len(w) < 2 || w[1] != "transaction") {
			break
		}
		return Statement{Kind: Begin, Isolation: isolationAfter(ts), SafeSnapshot: safeSnapshot(ts)}
	case "commit", "end", "rollback", "abort":
		// [WORK | TRANSACTION] [AND [NO] CHAIN] and nothing else ends a
		// transaction; ROLLBACK [WORK | TRANSACTION] TO releases part of
		// one (case other-rollback-transaction-to-savepoint), COMMIT or
		// ROLLBACK PREPARED another session's.
		chain, ok := txEndTail(ts[1:])
		if !ok {
			if (w[0] == "rollback" || w[0] == "abort") && (hasSeq(ts, w[0], "to") || hasSeq(ts, "work", "to") || hasSeq(ts, "transaction", "to")) {
				return codeFree("ROLLBACK TO SAVEPOINT releases part of a transaction's locks")
			}
			return global(strings.ToUpper(w[0]) + " PREPARED ends another transaction")
		}
		// AND CHAIN begins the next transaction with the same
		// characteristics (engine/trace.go follows it).
		if w[0] == "commit" || w[0] == "end" {
			return Statement{Kind: Commit, Chain: chain}
		}
		return Statement{Kind: Rollback, Chain: chain}
	case "savepoint":
		return Statement{Kind: Session, Savepoint: true}
	case "release":
		return Statement{Kind: Session, Release: true}
	case "show":
		return Statement{Kind: Session}
	case "reset":
		w = namesOf(ts, 4) // RESET "search_path": a GUC name is not case-sensitive
		st := Statement{Kind: Session, Reset: true}
		if len(w) > 1 && timeoutParam(w[1]) {
			st.Timeout = true
		}
		if len(w) > 1 {
			st.Sets = sessionParam(w[1:])
			if w[1] == "default_transaction_isolation" {
				st.Sets = "default_transaction_isolation"
			}
		}
		return st
	case "discard":
		st := Statement{Kind: Session}
		if len(w) < 2 || w[1] != "all" {
			// DISCARD PLANS, SEQUENCES or TEMP takes the transaction's
			// snapshot (PostgreSQL's PlannedStmtRequiresSnapshot
			// exempts only transaction control, LOCK, SET, SHOW and
			// a few more: case iso-discard-takes-snapshot) and drops
			// what the session made.
			return codeFree("DISCARD takes a snapshot and drops the session's plans, sequences' state or temporary tables")
		}
		if len(w) > 1 && w[1] == "all" {
			// DISCARD ALL also runs pg_advisory_unlock_all().
			st.Sets, st.Reset = "discard", true
			st.Reads, st.Writes = []string{AdvisoryLocks}, []string{AdvisoryLocks}
		}
		return st
	case "set":
		return setStatement(ts, namesOf(ts, 4))
	case "create":
		if name, ok := createdTable(ts); ok && !noPlan {
			return c.createTable(ctx, ts, name)
		}
	case "truncate":
		// Global: it empties tables at once under an ACCESS EXCLUSIVE
		// lock and is not MVCC-safe. But it runs no code of the user's
		// unless a trigger ON TRUNCATE or a foreign table's wrapper does,
		// so the session's state after it is still known (golang-migrate
		// truncates its version table in every SetVersion).
		if cat, err := c.loadCatalog(ctx); err == nil && !cat.truncateCode {
			return codeFree("TRUNCATE is not classified")
		}
	case "do", "call":
		st := global(strings.ToUpper(w[0]) + " runs code that is not analysed")
		st.Opaque = true
		return st
	case "select", "with", "insert", "update", "delete", "merge", "values", "table":
		if selectInto(ts) {
			return codeFree("SELECT ... INTO creates a table")
		}
		if noPlan {
			return Statement{Kind: DML}
		}
		var st Statement
		if !single {
			st = c.dml(ctx, ts, untokenize(ts))
		} else {
			st = c.dml(ctx, ts, whole)
		}
		if st.Kind == DML {
			if why := c.unprintedCalls(ctx, ts); why != "" {
				return global(why)
			}
		}
		if st.Kind == DML {
			st.RowWait, st.RowHold = rowLockModes(w[0], ts)
			st.AdvisoryCall = advisoryCallOnly(ts) && len(st.Locks) == 0 && slices.Equal(st.Writes, []string{AdvisoryLocks})
		}
		return c.touchCreated(ctx, ts, st)
	}
	return global(strings.ToUpper(strings.Join(w[:min(len(w), 2)], " ")) + " is not classified")
}

// unprintedKeywords may stand before a parenthesis without being a call
// (besides syntaxFunctions: COALESCE, ROW, IN ...).
var unprintedKeywords = map[string]bool{
	"values": true, "some": true,
	"not": true, "and": true, "or": true, "as": true, "on": true, "using": true, "set": true, "select": true,
	"from": true, "where": true, "returning": true, "then": true, "else": true, "when": true, "with": true,
	"insert": true, "update": true, "delete": true, "into": true, "do": true, "by": true, "is": true,
	"case": true, "filter": true, "over": true,
}

// unprintedCalls checks the parts of a statement EXPLAIN does not print:
// an ON CONFLICT DO UPDATE's SET list and condition, and a MERGE's
// actions. Every call there must be a built-in function that is not
// volatile (nextval and the advisory lock functions included: they
// write); otherwise it says why the statement is global (cases
// names-on-conflict-nextval, names-on-conflict-function,
// names-merge-action-nextval).
func (c *Classifier) unprintedCalls(ctx context.Context, ts []token) string {
	from := -1
	for i := 0; i+1 < len(ts); i++ {
		if ts[i].kind == tokWord && ts[i+1].kind == tokWord &&
			((ts[i].text == "do" && ts[i+1].text == "update") || (ts[i].text == "when" && (ts[i+1].text == "matched" || ts[i+1].text == "not"))) {
			if from < 0 && (ts[i].text == "do" && hasSeq(ts, "on", "conflict") || ts[i].text == "when" && hasSeq(ts, "merge")) {
				from = i
			}
		}
	}
	if from < 0 {
		return ""
	}
	for i := from; i+1 < len(ts); i++ {
		t, next := ts[i], ts[i+1]
		if next.kind != tokPunct || next.text != "(" || (t.kind != tokWord && t.kind != tokQuoted) {
			continue
		}
		name := t.text
		if t.kind == tokWord && (unprintedKeywords[name] || syntaxFunctions[name]) {
			continue
		}
		if i >= 2 && ts[i-1].kind == tokPunct && ts[i-1].text == "." && (ts[i-2].kind == tokWord || ts[i-2].kind == tokQuoted) {
			name = ts[i-2].text + "." + name
		}
		lower := strings.ToLower(name)
		if lower == "nextval" || strings.HasSuffix(lower, ".nextval") || advisoryFunction(lower) {
			return "calls " + name + " where the plan does not show it (ON CONFLICT DO UPDATE, MERGE)"
		}
		ok, builtin, err := c.safeFunction(ctx, name)
		if err != nil || !ok || !builtin {
			return "calls " + name + " where the plan does not show it (ON CONFLICT DO UPDATE, MERGE)"
		}
	}
	return ""
}

// namesOf is words, with quoted names lower-cased too (a parameter's
// name: SET "search_path").
func namesOf(ts []token, n int) []string {
	var out []string
	for _, t := range ts {
		if len(out) == n || (t.kind != tokWord && t.kind != tokQuoted) {
			break
		}
		out = append(out, strings.ToLower(t.text))
	}
	return out
}

// sessionParam names the parameter among those that change how names
// resolve (search_path, role, session_authorization, all) that a SET or
// RESET whose words after SET/RESET (and SESSION/LOCAL) are w changes, or
// "".
func sessionParam(w []string) string {
	switch {
	case len(w) == 0:
		return ""
	case w[0] == "search_path" || w[0] == "schema":
		return "search_path"
	case w[0] == "role":
		return "role"
	case w[0] == "session" && len(w) > 1 && w[1] == "authorization", w[0] == "session_authorization":
		return "session_authorization"
	case w[0] == "all":
		return "all"
	}
	return ""
}

func setStatement(ts []token, w []string) Statement {
	rest := w[1:]
	local := false
	if len(rest) > 0 && (rest[0] == "session" || rest[0] == "local") {
		if len(rest) > 1 && rest[0] == "session" && rest[1] == "characteristics" {
			return Statement{Kind: Session, SessionIsolation: isolationAfter(ts)}
		}
		if len(rest) > 1 && rest[0] == "session" && rest[1] == "authorization" {
			// SET SESSION AUTHORIZATION: not the SESSION scope keyword.
		} else {
			local = rest[0] == "local"
			rest = rest[1:]
		}
	}
	if len(rest) == 0 {
		st := global("SET without a name")
		st.Opaque = true // the session's values are no longer known
		return st
	}
	if p := sessionParam(rest); p != "" && p != "all" {
		text := ts
		if local {
			// Replayed outside a transaction block, where SET LOCAL
			// does nothing: as a plain SET (case names-set-local-first).
			text = slices.Delete(slices.Clone(ts), 1, 2) // SET LOCAL x: the word after SET
		}
		st := Statement{Kind: Session, Sets: p, Local: local, Text: untokenize(text)}
		if n := len(ts); n > 0 && ts[n-1].kind == tokWord && ts[n-1].text == "default" {
			st.Reset = true // SET x TO DEFAULT
		}
		return st
	}
	if timeoutParam(rest[0]) {
		return Statement{Kind: Session, Timeout: true, Local: local}
	}
	if !followedParam(rest[0]) && !harmlessParam(rest[0]) {
		// DateStyle, TimeZone, extra_float_digits change what a literal
		// means or what a folded expression prints (a row key: cases
		// sess-datestyle-row-key, sess-extra-float-digits-row-key),
		// standard_conforming_strings how the text lexes, and
		// session_replication_role which triggers fire; the
		// classifier's connection has its own values.
		st := global("SET " + rest[0] + " changes how later statements are read")
		st.Opaque = true
		return st
	}
	switch rest[0] {
	case "transaction":
		if hasSeq(ts, "transaction", "snapshot") {
			return codeFree("SET TRANSACTION SNAPSHOT")
		}
		return Statement{Kind: Session, Isolation: isolationAfter(ts)}
	case "transaction_isolation":
		// The parameter behind SET TRANSACTION ISOLATION LEVEL (case
		// proto-set-transaction-isolation); not understood, the
		// strictest level.
		lvl := "serializable"
		for _, t := range ts[1:] {
			if t.kind == tokString || t.kind == tokWord {
				if l := normalIsolation(t.text); l != "" {
					lvl = l
				}
			}
		}
		return Statement{Kind: Session, Isolation: lvl}
	case "constraints":
		return codeFree("SET CONSTRAINTS moves constraint checks to commit")
	case "default_transaction_isolation":
		if n := len(ts); n > 0 && ts[n-1].kind == tokWord && ts[n-1].text == "default" {
			return Statement{Kind: Session, Sets: "default_transaction_isolation", Reset: true, Local: local}
		}
		for _, t := range ts {
			if t.kind == tokString || (t.kind == tokWord && normalIsolation(t.text) != "") {
				if lvl := normalIsolation(t.text); lvl != "" {
					return Statement{Kind: Session, SessionIsolation: lvl, Local: local}
				}
			}
		}
		// Not understood: the strictest level is the safe guess.
		return Statement{Kind: Session, SessionIsolation: "serializable", Local: local}
	}
	return Statement{Kind: Session}
}

// untokenize rebuilds a statement's text from its tokens (for a simple
// Query with several statements, each planned on its own).
func untokenize(ts []token) string {
	var b strings.Builder
	for i, t := range ts {
		if i > 0 {
			b.WriteByte(' ')
		}
		if t.kind == tokQuoted {
			b.WriteString(`"` + strings.ReplaceAll(t.text, `"`, `""`) + `"`)
		} else {
			b.WriteString(t.text)
		}
	}
	return b.String()
}

// lockingClause reports a row-locking clause: FOR UPDATE, FOR NO KEY
// UPDATE, FOR SHARE, FOR KEY SHARE.
func lockingClause(ts []token) bool {
	return hasSeq(ts, "for", "update") || hasSeq(ts, "for", "share") ||
		hasSeq(ts, "for", "no", "key", "update") || hasSeq(ts, "for", "key", "share")
}

// timeoutParam: a setting that can end a lock wait by time.
func timeoutParam(name string) bool {
	switch name {
	case "lock_timeout", "statement_timeout", "idle_in_transaction_session_timeout", "idle_session_timeout", "transaction_timeout":
		return true
	}
	return false
}

// followedParam: a setting setStatement follows by name.
func followedParam(name string) bool {
	switch name {
	case "transaction", "transaction_isolation", "constraints", "default_transaction_isolation":
		return true
	}
	return false
}

// harmlessParam: a setting that changes neither what a statement names
// nor what its literals mean: costs, resources, logging, the
// application's name, and custom settings (with a dot), which only code
// reading them sees, and such code is classified global.
func harmlessParam(name string) bool {
	if strings.Contains(name, ".") {
		return true
	}
	for _, p := range []string{"enable_", "log_", "jit", "parallel_", "max_parallel_", "geqo", "track_", "cpu_"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	switch name {
	case "application_name", "client_min_messages", "work_mem", "maintenance_work_mem", "temp_buffers", "hash_mem_multiplier",
		"synchronous_commit", "random_page_cost", "seq_page_cost", "effective_cache_size", "effective_io_concurrency",
		"from_collapse_limit", "join_collapse_limit", "plan_cache_mode", "default_statistics_target", "commit_delay", "commit_siblings",
		"geqo_threshold":
		return true
	}
	return false
}

// rowLockModes reads Statement.RowWait and RowHold from a statement's
// first word and its locking clauses. A WITH, an INSERT or a MERGE is
// neither: what they lock is not followed row by row.
func rowLockModes(first string, ts []token) (wait, hold bool) {
	switch first {
	case "update", "delete":
		return true, true
	case "select":
	default:
		return false, false
	}
	if !lockingClause(ts) {
		return false, false
	}
	keyShare := hasSeq(ts, "for", "key", "share")
	share := hasSeq(ts, "for", "share")
	noWait := hasSeq(ts, "skip", "locked") || hasSeq(ts, "nowait")
	return !keyShare && !noWait, !keyShare && !share
}
