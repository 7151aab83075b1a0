package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
)

// scenario builds the runnable scenario: command actors, SQL and command
// setup, SQL and command invariant.
func (c *fileConfig) scenario() interleave.Scenario {
	sc := interleave.Scenario{
		Name:              c.name,
		Setup:             c.setup,
		Invariant:         c.invariant,
		HandleActorErrors: c.handleActorErrors,
		// A command reads the database on connections of its own.
		InvariantConnects: c.invariantCommand != nil,
	}
	for _, a := range c.actors {
		sc.Actors = append(sc.Actors, interleave.CommandActor(a.name, a.cmd.argv, interleave.CommandOptions{Dir: a.cmd.dir, Env: a.cmd.env}))
	}
	return sc
}

// setup runs `sql`, then the files, then the commands, on the direct
// (unproxied) connection and with its environment.
func (c *fileConfig) setup(ctx context.Context, db *pgx.Conn) error {
	if strings.TrimSpace(c.setupSQL) != "" {
		if err := execSQL(ctx, db, c.setupSQL); err != nil {
			return fmt.Errorf("setup sql: %w", err)
		}
	}
	for _, f := range c.setupFiles {
		if err := execSQL(ctx, db, f.sql); err != nil {
			return fmt.Errorf("setup file %s: %w", f.name, err)
		}
	}
	if len(c.setupCommands) == 0 {
		return nil
	}
	env, password := directEnv(db)
	for _, cmd := range c.setupCommands {
		if err := runCommand(ctx, cmd, env, password); err != nil {
			return fmt.Errorf("setup command %s: %w", strings.Join(cmd.argv, " "), err)
		}
	}
	return nil
}

// execSQL runs a script as one simple Query, as psql -c would.
func execSQL(ctx context.Context, db *pgx.Conn, sql string) error {
	_, err := db.PgConn().Exec(ctx, sql).ReadAll()
	return err
}

// invariant runs the SQL checks in order, then the command; the first
// failure is the violation.
func (c *fileConfig) invariant(ctx context.Context, db *pgx.Conn, _ []interleave.ActorResult) error {
	for i, ch := range c.checks {
		if err := ch.run(ctx, db, i+1); err != nil {
			return err
		}
	}
	if c.invariantCommand != nil {
		env, password := directEnv(db)
		if err := runCommand(ctx, *c.invariantCommand, env, password); err != nil {
			return fmt.Errorf("the invariant's command %s failed: %w", strings.Join(c.invariantCommand.argv, " "), err)
		}
	}
	return nil
}

func (ch check) run(ctx context.Context, db *pgx.Conn, n int) error {
	label := ch.message
	if label == "" {
		label = fmt.Sprintf("invariant query %d (%s)", n, oneLine(ch.query))
	}
	got, err := queryText(ctx, db, ch.query)
	if err != nil {
		return fmt.Errorf("%s: the query failed: %v", label, err)
	}
	if ch.hasCount {
		if len(got) != ch.count {
			return fmt.Errorf("%s: got %d rows, want %d", label, len(got), ch.count)
		}
		return nil
	}
	if !sameRows(got, ch.expect) {
		return fmt.Errorf("%s: got %s, want %s", label, showRows(got), showRows(ch.expect))
	}
	return nil
}

// queryText runs one query and returns its rows as PostgreSQL's text
// output, nil for NULL.
func queryText(ctx context.Context, db *pgx.Conn, sql string) ([][]*string, error) {
	res := db.PgConn().ExecParams(ctx, sql, nil, nil, nil, nil).Read()
	if res.Err != nil {
		return nil, res.Err
	}
	rows := [][]*string{}
	for _, r := range res.Rows {
		row := make([]*string, len(r))
		for i, v := range r {
			if v != nil {
				s := string(v)
				row[i] = &s
			}
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func sameRows(a, b [][]*string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			x, y := a[i][j], b[i][j]
			if (x == nil) != (y == nil) || (x != nil && *x != *y) {
				return false
			}
		}
	}
	return true
}

// showRows prints rows compactly: a single value as itself, otherwise as
// JSON (null for NULL).
func showRows(rows [][]*string) string {
	if len(rows) == 1 && len(rows[0]) == 1 {
		if rows[0][0] == nil {
			return "null"
		}
		return *rows[0][0]
	}
	if len(rows) == 0 {
		return "no rows"
	}
	b, _ := json.Marshal(rows)
	return string(b)
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}
