package main

import (
	"context"
	"fmt"
	"os"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/cmd/cli"
	"github.com/spf13/cobra"
)

// The demo: one item left in stock, two buyers. Each checks the stock, then
// decrements it and records an order. When both check before either buys,
// the shop sells an item it does not have.
func oversellScenario(safe bool) interleave.Scenario {
	buy := func(ctx context.Context, connString string) (any, error) {
		conn, err := pgx.Connect(ctx, connString)
		if err != nil {
			return nil, err
		}
		defer conn.Close(ctx)
		var stock int
		if err := conn.QueryRow(ctx, "SELECT stock FROM items WHERE id = 1").Scan(&stock); err != nil {
			return nil, err
		}
		if stock <= 0 {
			return "sold out", nil
		}
		if safe {
			// The check travels with the write: the row lock makes the second
			// buyer re-read the stock after the first one's commit.
			tag, err := conn.Exec(ctx, "UPDATE items SET stock = stock - 1 WHERE id = 1 AND stock > 0")
			if err != nil {
				return nil, err
			}
			if tag.RowsAffected() == 0 {
				return "sold out", nil
			}
		} else if _, err := conn.Exec(ctx, "UPDATE items SET stock = $1 WHERE id = 1", stock-1); err != nil {
			return nil, err
		}
		if _, err := conn.Exec(ctx, "INSERT INTO orders (item_id) VALUES (1)"); err != nil {
			return nil, err
		}
		return "bought", nil
	}
	name := "oversell"
	if safe {
		name = "oversell-safe"
	}
	return interleave.Scenario{
		Name: name,
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, `CREATE TABLE items (id int PRIMARY KEY, stock int NOT NULL);
				CREATE TABLE orders (id serial PRIMARY KEY, item_id int NOT NULL REFERENCES items);
				INSERT INTO items VALUES (1, 1)`)
			return err
		},
		Actors: []interleave.Actor{{Name: "buyer1", Run: buy}, {Name: "buyer2", Run: buy}},
		Invariant: func(ctx context.Context, db *pgx.Conn, _ []interleave.ActorResult) error {
			var orders, stock int
			if err := db.QueryRow(ctx, "SELECT (SELECT count(*) FROM orders), (SELECT stock FROM items WHERE id = 1)").Scan(&orders, &stock); err != nil {
				return err
			}
			if orders+stock != 1 || stock < 0 {
				return fmt.Errorf("Oversold: %d orders for 1 item in stock (stock is now %d)", orders, stock)
			}
			return nil
		},
	}
}

func demoCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "demo [--safe] [run flags]",
		Short: "Find the built-in oversell race (two buyers, one item) on a throwaway PostgreSQL",
		Long: `demo runs a built-in scenario: one item left in stock, two buyers who check the
stock and then buy. It starts a throwaway PostgreSQL from the local binaries, finds
the order in which both buyers buy, and exits 1. With --safe the buyers use a
conditional UPDATE; every order is explored and the demo exits 0.`,
		Example: `  interleave demo                 # finds the oversell: exit 1
  interleave demo --safe          # the repaired buyers: every order explored, exit 0
  interleave demo --out oversell.json && interleave report oversell.json --out oversell.html`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			safe := false
			var rest []string
			for _, a := range args {
				if a == "--safe" {
					safe = true
					continue
				}
				rest = append(rest, a)
			}
			if wantsHelp(rest) && len(rest) > 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "%s\n\nUsage:\n  interleave %s\n\nExamples:\n%s\n\nFlags:\n%s", cmd.Long, cmd.Use, cmd.Example,
					cli.Usage("run", interleave.Options{}, [2]string{"--safe", "search the repaired buyers instead (every order explored, exit 0)"}))
				return nil
			}
			if pos, _, err := cli.ParseArgs("run", rest, "interleave "+cmd.Use); err != nil {
				return err
			} else if len(pos) > 0 {
				return &cli.UsageError{Msg: fmt.Sprintf("demo takes no arguments, only flags; got %s", quoteArgs(pos)), Usage: "interleave " + cmd.Use}
			}
			p := cli.Program{Scenarios: []interleave.Scenario{oversellScenario(safe)}, Docker: dockerProvider}
			code := cli.Run(append([]string{"run"}, rest...), os.Stdout, os.Stderr, p)
			printTermsPointer(os.Stdout, rest, code)
			return exitCode(code)
		},
	}
}
