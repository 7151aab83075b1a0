package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// behaviour summarises what an attempt did, for the reduction check: each
// actor's value and error (an SQLSTATE when PostgreSQL raised it), the
// outcome's class, and the rows of every user table and the state of every
// sequence at the end, hashed. Two orders the reduction calls equivalent
// must have the same behaviour. A table estimated at more than
// behaviourMaxRows rows is summarised by its row count alone (the digest
// must stay cheap next to the attempt). "" when it cannot be computed.
func (w *worker) behaviour(ctx context.Context, r *attemptResult) string {
	if w.control == nil || w.control.IsClosed() || w.control.PgConn().TxStatus() != 'I' {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "outcome %s\n", r.Outcome)
	for _, a := range r.Actors {
		v, err := json.Marshal(a.Value)
		if err != nil {
			v = []byte(fmt.Sprintf("%#v", a.Value))
		}
		fmt.Fprintf(h, "%s=%s", a.Actor, v)
		if a.Err != nil {
			var pe *pgconn.PgError
			if errors.As(a.Err, &pe) {
				fmt.Fprintf(h, " error %s", pe.Code)
			} else {
				fmt.Fprintf(h, " error %s", a.Err)
			}
		}
		h.Write([]byte{'\n'})
	}
	rows, err := w.control.Query(ctx, `SELECT format('%I.%I', n.nspname, c.relname), c.relkind::text, c.reltuples > $1
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relkind IN ('r', 'S', 'm') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
		  AND n.nspname NOT LIKE 'pg_toast%' AND n.nspname NOT LIKE 'pg_temp%'
		ORDER BY 1`, behaviourMaxRows)
	if err != nil {
		return ""
	}
	var parts []string
	for rows.Next() {
		var name, kind string
		var big bool
		if err := rows.Scan(&name, &kind, &big); err != nil {
			rows.Close()
			return ""
		}
		switch {
		case kind == "S":
			parts = append(parts, "(SELECT last_value::text || ' ' || is_called::text FROM "+name+")")
		case big:
			parts = append(parts, "(SELECT count(*)::text FROM "+name+")")
		default:
			parts = append(parts, "(SELECT md5(coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '')) FROM "+name+" t)")
		}
		parts = append(parts, quoteLiteral(name))
	}
	rows.Close()
	if rows.Err() != nil {
		return ""
	}
	if len(parts) > 0 {
		var digest string
		if err := w.control.QueryRow(ctx, "SELECT concat_ws(' ', "+strings.Join(parts, ", ")+")").Scan(&digest); err != nil {
			return ""
		}
		h.Write([]byte(digest))
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// behaviourMaxRows is the estimated size above which a table's behaviour is
// its row count.
const behaviourMaxRows = 10000

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
