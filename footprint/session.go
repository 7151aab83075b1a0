package footprint

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Vals are the values, in one session, of the settings that change what a
// statement means: the role names resolve as, the search_path they resolve
// in, and the isolation level a transaction takes by default. The engine
// follows them through each connection's start-up packet and SETs.
type Vals struct {
	// Stmts holds, by parameter ("session_authorization", "role",
	// "search_path"), the statement that puts another connection in the
	// same state; a parameter without one is the classifier connection's
	// own value.
	Stmts map[string]string
	// Isolation is default_transaction_isolation ("read committed",
	// "repeatable read", "serializable").
	Isolation string
	// Unknown says why the values cannot be followed (every statement that
	// resolves a name is then Global).
	Unknown string
	// Timeouts: a lock_timeout or statement_timeout may be in effect (set
	// for the server, the database, the role, in the start-up packet, or
	// by a SET or RESET since): a lock wait may end by time.
	Timeouts bool
	// Other holds the session's defaults (start-up packet, database and
	// role settings) of the settings not followed above that differ from
	// the classifier connection's own: how text reads (TimeZone,
	// DateStyle, standard_conforming_strings, extra_float_digits,
	// transform_null_equals, ...). The classifier takes them on before
	// it classifies (cases ri-key-database-timezone,
	// ri-key-hidden-by-database-scs, ri-null-equals-database-default). A
	// RESET or RESET ALL goes back to them; a SET of one makes the
	// session unknown.
	Other map[string]string
}

// Clone returns a copy of v that can be changed alone.
func (v Vals) Clone() Vals {
	out := v
	out.Stmts = maps.Clone(v.Stmts)
	if out.Stmts == nil {
		out.Stmts = map[string]string{}
	}
	out.Other = maps.Clone(v.Other)
	return out
}

// State is the SessionState to classify a statement of this session in.
func (v Vals) State() SessionState {
	st := SessionState{Unknown: v.Unknown}
	for _, k := range slices.Sorted(maps.Keys(v.Other)) {
		st.Setup = append(st.Setup, "SELECT set_config("+literal(k)+", "+literal(v.Other[k])+", false)")
		st.resets = append(st.resets, k)
	}
	for _, p := range []string{"session_authorization", "role", "search_path"} {
		if s := v.Stmts[p]; s != "" {
			st.Setup = append(st.Setup, s)
		}
	}
	return st
}

// Defaults are a new connection's Vals, as PostgreSQL resolves them for its
// start-up parameters (name, value pairs: user, options, and any setting
// sent by name): a setting in the start-up packet, else the database's and
// role's defaults (ALTER ROLE ... IN DATABASE ... SET, ALTER ROLE ... SET,
// ALTER DATABASE ... SET, in that order), else the server's.
func (c *Classifier) Defaults(ctx context.Context, params []string) Vals {
	v := Vals{Stmts: map[string]string{}}
	if err := c.loadOwn(ctx); err != nil {
		v.Unknown = "the server's settings could not be read: " + err.Error()
		v.Isolation = "serializable"
		return v
	}
	user := ""
	startup := map[string]string{}
	// PostgreSQL applies the options' switches first and the parameters
	// sent by name after them, whatever their order in the packet (case
	// yy-startup-named-beats-options-search-path).
	named := map[string]string{}
	for i := 0; i+1 < len(params); i += 2 {
		name, val := strings.ToLower(params[i]), params[i+1]
		switch name {
		case "user":
			user = val
		case "options":
			opts, ok := parseOptions(val)
			if !ok {
				v.Unknown = "the start-up options do not parse"
			}
			for k, x := range opts {
				startup[k] = x
			}
		default:
			named[name] = val
		}
	}
	for k, x := range named {
		startup[k] = x
	}
	if x, ok := startup["synchronize_seqscans"]; ok && !offValue(x) {
		// The engine starts every connection with it off; a client that
		// turns it on by name makes two reads of a large relation depend
		// on their order (case yy-syncscan-startup-param).
		v.Unknown = "the session turns synchronize_seqscans on"
	}
	set := c.roleSettings(ctx, user)
	for k, x := range startup {
		set[k] = x
	}
	if r, ok := set["role"]; ok && r != "" && r != "none" {
		v.Stmts["role"] = "SELECT set_config('role', " + literal(r) + ", false)"
	} else if user != "" && user != c.own.user {
		v.Stmts["role"] = "SET ROLE " + ident(user)
	}
	if sa, ok := set["session_authorization"]; ok {
		v.Stmts["session_authorization"] = "SET SESSION AUTHORIZATION " + literal(sa)
	}
	sp, ok := set["search_path"]
	if !ok {
		sp = c.own.searchPath
	}
	if sp != c.own.searchPath || v.Stmts["role"] != "" {
		v.Stmts["search_path"] = "SELECT set_config('search_path', " + literal(sp) + ", false)"
	}
	v.Timeouts = c.own.timeouts
	for _, p := range []string{"lock_timeout", "statement_timeout", "idle_in_transaction_session_timeout", "idle_session_timeout", "transaction_timeout"} {
		if x, ok := set[p]; ok && strings.TrimSpace(x) != "0" {
			v.Timeouts = true
		}
	}
	for k, x := range set {
		switch {
		case defaultFollowed(k) || harmlessParam(k) || followedParam(k):
		case k == "standard_conforming_strings" && !strings.EqualFold(strings.TrimSpace(x), "on"):
			// The lexer reads strings as the server's default has them.
			v.Unknown = "the session's standard_conforming_strings is " + x
		case k == "client_encoding":
			if e := strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(x)); e != "utf8" && e != "unicode" {
				v.Unknown = "the session's client_encoding is " + x
			}
		default:
			if cur, err := c.currentSetting(ctx, k); err == nil && cur == x {
				continue
			}
			if v.Other == nil {
				v.Other = map[string]string{}
			}
			v.Other[k] = x
		}
	}
	if lvl, ok := set["default_transaction_isolation"]; ok {
		v.Isolation = normalIsolation(lvl)
		if v.Isolation == "" {
			v.Isolation = "serializable" // not understood: the strictest
		}
	} else {
		v.Isolation = c.own.isolation
	}
	if c.own.err != "" && v.Unknown == "" {
		v.Unknown = c.own.err
	}
	if c.own.login && v.Unknown == "" {
		v.Unknown = "a login event trigger runs code at every connection's start"
	}
	return v
}

// defaultFollowed: start-up and default settings Defaults reads itself.
func defaultFollowed(k string) bool {
	switch k {
	case "user", "database", "options", "replication", "role", "session_authorization", "search_path",
		"default_transaction_isolation", "lock_timeout", "statement_timeout",
		"idle_in_transaction_session_timeout", "idle_session_timeout", "transaction_timeout":
		return true
	}
	return false
}

// currentSetting is the classifier connection's own value of setting k.
func (c *Classifier) currentSetting(ctx context.Context, k string) (string, error) {
	var v *string
	if err := c.conn.QueryRow(ctx, "SELECT current_setting($1, true)", k).Scan(&v); err != nil {
		return "", err
	}
	if v == nil {
		return "", fmt.Errorf("no setting %s", k)
	}
	return *v, nil
}

// own is what the classifier's connection knows of the server: its user,
// and the server-wide values of the settings Vals follows.
type own struct {
	loaded                      bool
	user, searchPath, isolation string
	err                         string
	// timeouts: the server's lock_timeout, statement_timeout or an idle
	// or transaction timeout is not 0
	timeouts bool
	// login: the database has a login event trigger
	login bool
}

func (c *Classifier) loadOwn(ctx context.Context) error {
	if c.own.loaded {
		return nil
	}
	o := own{loaded: true}
	if err := c.conn.QueryRow(ctx, "SELECT current_user, current_setting('search_path')").Scan(&o.user, &o.searchPath); err != nil {
		return err
	}
	// The server-wide value is the connection's own reset value unless
	// that came from a database or role setting or the connection's
	// start-up packet: then it is not known, and the strictest level
	// stands in for it.
	var iso, src, boot string
	if err := c.conn.QueryRow(ctx, `SELECT reset_val, source, boot_val FROM pg_settings WHERE name = 'default_transaction_isolation'`).Scan(&iso, &src, &boot); err != nil {
		return err
	}
	switch src {
	case "default", "configuration file", "command line", "environment variable", "override":
		o.isolation = normalIsolation(iso)
	default:
		o.isolation = "serializable"
	}
	if o.isolation == "" {
		o.isolation = "serializable"
	}
	var nonZero bool
	if err := c.conn.QueryRow(ctx, `SELECT bool_or(reset_val <> '0' OR boot_val <> '0') FROM pg_settings WHERE name IN ('lock_timeout', 'statement_timeout',
		'idle_in_transaction_session_timeout', 'idle_session_timeout', 'transaction_timeout')`).Scan(&nonZero); err != nil {
		return err
	}
	o.timeouts = nonZero
	// A login event trigger (PostgreSQL 17) runs code at every
	// connection's start, which may set anything (case
	// ver-login-trigger-search-path).
	if err := c.conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_event_trigger WHERE evtevent = 'login' AND evtenabled <> 'D')`).Scan(&o.login); err != nil {
		return err
	}
	var spSrc string
	if err := c.conn.QueryRow(ctx, `SELECT source FROM pg_settings WHERE name = 'search_path'`).Scan(&spSrc); err != nil {
		return err
	}
	switch spSrc {
	case "default", "configuration file", "command line", "environment variable", "override", "session":
	default:
		// The connection's own search_path came from its role, database
		// or start-up packet: a session without those has another.
		if err := c.conn.QueryRow(ctx, `SELECT boot_val FROM pg_settings WHERE name = 'search_path'`).Scan(&o.searchPath); err != nil {
			return err
		}
	}
	c.own = o
	return nil
}

// roleSettings are the database's and role's defaults for user, the most
// specific first (ALTER ROLE ... IN DATABASE ... SET, then ALTER ROLE ...
// SET, then ALTER DATABASE ... SET), read after the scenario's setup.
func (c *Classifier) roleSettings(ctx context.Context, user string) map[string]string {
	m, ok := c.roles[user]
	if !ok {
		m = c.readRoleSettings(ctx, user)
		if c.roles == nil {
			c.roles = map[string]map[string]string{}
		}
		c.roles[user] = m
	}
	return maps.Clone(m) // the caller adds the start-up packet's settings
}

func (c *Classifier) readRoleSettings(ctx context.Context, user string) map[string]string {
	out := map[string]string{}
	rank := map[string]int{}
	rows, err := c.conn.Query(ctx, `SELECT split_part(cfg, '=', 1), substr(cfg, strpos(cfg, '=') + 1),
		(s.setdatabase <> 0)::int + 2 * (s.setrole <> 0)::int
		FROM pg_db_role_setting s, unnest(s.setconfig) cfg
		WHERE (s.setdatabase = 0 OR s.setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database()))
		  AND (s.setrole = 0 OR s.setrole = (SELECT oid FROM pg_roles WHERE rolname = $1))
		  AND NOT (s.setdatabase = 0 AND s.setrole = 0)`, user)
	if err != nil {
		out["default_transaction_isolation"] = "not known"
		return out
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		var r int
		if rows.Scan(&k, &v, &r) != nil {
			continue
		}
		k = strings.ToLower(k)
		if r > rank[k] {
			out[k], rank[k] = v, r
		}
	}
	return out
}

// parseOptions reads the settings of a start-up packet's options: "-c
// name=value" and "--name=value", separated by spaces, a backslash escaping
// the next character. ok is false when a word is neither.
func parseOptions(s string) (map[string]string, bool) {
	var words []string
	var b strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
			in = true
		case ch == ' ' || ch == '\t' || ch == '\n':
			if in {
				words = append(words, b.String())
				b.Reset()
				in = false
			}
		default:
			b.WriteByte(ch)
			in = true
		}
	}
	if in {
		words = append(words, b.String())
	}
	out := map[string]string{}
	ok := true
	for i := 0; i < len(words); i++ {
		w := words[i]
		var kv string
		switch {
		case w == "-c" && i+1 < len(words):
			i++
			kv = words[i]
		case strings.HasPrefix(w, "-c"):
			kv = w[2:]
		case strings.HasPrefix(w, "--"):
			kv = w[2:]
		default:
			ok = false
			continue
		}
		k, v, found := strings.Cut(kv, "=")
		if !found {
			ok = false
			continue
		}
		out[strings.ToLower(strings.ReplaceAll(k, "-", "_"))] = v
	}
	return out, ok
}

// Split returns the statements of a simple Query's text, each as text that
// can be classified alone; ok is false when the text does not lex.
func Split(sql string) (stmts []string, ok bool) {
	ts, ok := lex(sql)
	if !ok {
		return nil, false
	}
	if len(ts) <= 1 {
		return []string{sql}, true
	}
	for _, t := range ts {
		stmts = append(stmts, untokenize(t))
	}
	return stmts, true
}

func literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func ident(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// ChangesSchema reports whether sql holds a statement that may change the
// schema (DDL, GRANT, DO and CALL, which may run DDL; not TRUNCATE, which
// empties tables and is classified Global): what the catalogs
// say after the attempt is then not what every statement ran against, so
// the attempt cannot be classified after the fact. A text that does not
// lex may.
func ChangesSchema(sql string) bool {
	stmts, ok := lex(sql)
	if !ok {
		return true
	}
	for _, ts := range stmts {
		if changesSchema(ts) {
			return true
		}
	}
	return false
}

// offValue reports a boolean setting's value that means off.
func offValue(x string) bool {
	switch strings.ToLower(strings.TrimSpace(x)) {
	case "off", "false", "no", "0", "of", "f", "n":
		return true
	}
	return false
}
