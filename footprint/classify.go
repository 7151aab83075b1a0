package footprint

import (
	"context"
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
	conn    *pgx.Conn
	cache   *Cache
	catalog *catalog
}

// NewClassifier classifies on conn, sharing cache.
func NewClassifier(conn *pgx.Conn, cache *Cache) *Classifier {
	return &Classifier{conn: conn, cache: cache}
}

// Classify returns the footprints of the statements in sql (a simple
// Query's string may hold several).
func (c *Classifier) Classify(ctx context.Context, sql string) []Statement {
	if s, ok := c.cache.get(sql); ok {
		return s
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
			out = append(out, c.statement(ctx, ts, sql, len(stmts) == 1))
		}
	}
	if ctx.Err() == nil {
		c.cache.put(sql, out)
	}
	return out
}

// statement classifies one statement; whole is the text when it is the only
// statement (the planner is asked about it).
func (c *Classifier) statement(ctx context.Context, ts []token, whole string, single bool) Statement {
	w := words(ts, 4)
	if len(w) == 0 {
		return global("the statement does not start with a keyword")
	}
	switch w[0] {
	case "begin", "start":
		if w[0] == "start" && (len(w) < 2 || w[1] != "transaction") {
			break
		}
		return Statement{Kind: Begin, Isolation: isolationAfter(ts)}
	case "commit", "end":
		if len(w) > 1 && w[1] == "prepared" {
			break
		}
		if hasSeq(ts, "and", "chain") {
			return global("COMMIT AND CHAIN")
		}
		return Statement{Kind: Commit}
	case "rollback", "abort":
		if len(w) > 1 && (w[1] == "to" || w[1] == "prepared") {
			return global("ROLLBACK TO SAVEPOINT releases part of a transaction's locks")
		}
		if hasSeq(ts, "and", "chain") {
			return global("ROLLBACK AND CHAIN")
		}
		return Statement{Kind: Rollback}
	case "savepoint", "release", "show", "reset":
		return Statement{Kind: Session}
	case "discard":
		return Statement{Kind: Session}
	case "set":
		return setStatement(ts, w)
	case "select", "with", "insert", "update", "delete", "merge", "values", "table":
		if !single {
			return c.dml(ctx, ts, untokenize(ts))
		}
		return c.dml(ctx, ts, whole)
	}
	return global(strings.ToUpper(strings.Join(w[:min(len(w), 2)], " ")) + " is not classified")
}

func setStatement(ts []token, w []string) Statement {
	rest := w[1:]
	if len(rest) > 0 && (rest[0] == "session" || rest[0] == "local") {
		if len(rest) > 1 && rest[0] == "session" && rest[1] == "characteristics" {
			return Statement{Kind: Session, SessionIsolation: isolationAfter(ts)}
		}
		rest = rest[1:]
	}
	if len(rest) == 0 {
		return global("SET without a name")
	}
	switch rest[0] {
	case "transaction":
		if hasSeq(ts, "transaction", "snapshot") {
			return global("SET TRANSACTION SNAPSHOT")
		}
		return Statement{Kind: Session, Isolation: isolationAfter(ts)}
	case "constraints":
		return global("SET CONSTRAINTS moves constraint checks to commit")
	case "default_transaction_isolation":
		for _, t := range ts {
			if t.kind == tokString || (t.kind == tokWord && normalIsolation(t.text) != "") {
				if lvl := normalIsolation(t.text); lvl != "" {
					return Statement{Kind: Session, SessionIsolation: lvl}
				}
			}
		}
		// SET default_transaction_isolation TO DEFAULT, or words: be safe.
		return Statement{Kind: Session, SessionIsolation: "serializable"}
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
