package scenario

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// StepResult is what one SQL block of a session returned: its result sets
// (only those with columns: the tester prints no command results), then the
// error that ended it, if any; notices the session received meanwhile.
type StepResult struct {
	Kind    string      `json:"kind"` // setup, step or teardown
	Step    string      `json:"step,omitempty"`
	Results []ResultSet `json:"results,omitempty"`
	Error   *StepError  `json:"error,omitempty"`
	Notices []string    `json:"notices,omitempty"`
}

// ResultSet is one result with columns, values as PostgreSQL's text output
// (nil for NULL).
type ResultSet struct {
	Columns []string    `json:"columns"`
	Rows    [][]*string `json:"rows"`
}

// StepError is an error PostgreSQL reported.
type StepError struct {
	Severity string `json:"severity"`
	Message  string `json:"message"`
	SQLState string `json:"sqlstate"`
}

// sessionUnit is one SQL block an actor sends: one simple Query, one
// release unit.
type sessionUnit struct {
	kind, step, sql string
}

// sessionActor runs a session's blocks in order on one connection and
// returns their results as its value. Errors from PostgreSQL are results;
// only a lost connection (or the attempt ending) is an actor error.
func sessionActor(units []sessionUnit) func(ctx context.Context, connString string) (any, error) {
	return func(ctx context.Context, connString string) (any, error) {
		cfg, err := pgx.ParseConfig(connString)
		if err != nil {
			return nil, err
		}
		// Every block is exactly one simple Query: one release unit.
		cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
		// pgx adds the caller's PGTZ (as "timezone") and PGAPPNAME to the
		// start-up parameters; two spellings of one setting would go out in
		// map order and either could win. The spec's settings win, always.
		for k := range cfg.RuntimeParams {
			for name := range testerSettings {
				if strings.EqualFold(k, name) {
					delete(cfg.RuntimeParams, k)
				}
			}
		}
		for k, v := range testerSettings {
			cfg.RuntimeParams[k] = v
		}
		var mu sync.Mutex
		var cur *StepResult
		cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
			mu.Lock()
			defer mu.Unlock()
			if cur != nil {
				cur.Notices = append(cur.Notices, noticeText(n))
			}
		}
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			return nil, err
		}
		defer conn.Close(context.Background())
		out := make([]StepResult, 0, len(units))
		for _, u := range units {
			r := &StepResult{Kind: u.kind, Step: u.step}
			mu.Lock()
			cur = r
			mu.Unlock()
			err := execBlock(ctx, conn.PgConn(), u.sql, r)
			mu.Lock()
			cur = nil
			mu.Unlock()
			out = append(out, *r)
			if err != nil {
				return out, fmt.Errorf("%s %s: %w", u.kind, u.step, err)
			}
		}
		return out, nil
	}
}

// execBlock sends sql as one simple Query and records every result as
// libpq's PQgetResult would deliver it: result sets in order; a result that
// ends in an error is only the error. It returns an error only when the
// connection failed.
func execBlock(ctx context.Context, conn *pgconn.PgConn, sql string, r *StepResult) error {
	mrr := conn.Exec(ctx, sql)
	recorded := false
	for mrr.NextResult() {
		rr := mrr.ResultReader()
		var rs *ResultSet
		if fds := rr.FieldDescriptions(); fds != nil {
			rs = &ResultSet{Columns: make([]string, len(fds)), Rows: [][]*string{}}
			for i, fd := range fds {
				rs.Columns[i] = fd.Name
			}
		}
		for rr.NextRow() {
			if rs == nil { // a result whose description came late
				fds := rr.FieldDescriptions()
				rs = &ResultSet{Columns: make([]string, len(fds)), Rows: [][]*string{}}
				for i, fd := range fds {
					rs.Columns[i] = fd.Name
				}
			}
			vals := rr.Values()
			row := make([]*string, len(vals))
			for i, v := range vals {
				if v != nil {
					s := string(v)
					row[i] = &s
				}
			}
			rs.Rows = append(rs.Rows, row)
		}
		if _, err := rr.Close(); err != nil {
			if !recordError(r, err) {
				mrr.Close()
				return err
			}
			recorded = true
			continue
		}
		if rs != nil {
			r.Results = append(r.Results, *rs)
		}
	}
	if err := mrr.Close(); err != nil && !recorded {
		if !recordError(r, err) {
			return err
		}
	}
	return nil
}

// recordError keeps a server error as the step's error; it reports false
// for any other error (the connection is gone).
func recordError(r *StepResult, err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	r.Error = &StepError{Severity: pe.Severity, Message: pe.Message, SQLState: pe.Code}
	return true
}

// noticeText is libpq's default rendering of a notice, as the tester prints
// it after the session's name.
func noticeText(n *pgconn.Notice) string {
	s := n.Severity + ":  " + n.Message + "\n"
	if n.Detail != "" {
		s += "DETAIL:  " + n.Detail + "\n"
	}
	if n.Hint != "" {
		s += "HINT:  " + n.Hint + "\n"
	}
	return s
}
