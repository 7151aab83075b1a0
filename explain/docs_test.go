package explain_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/pginterleave/interleave/internal/testkit/golden"
)

// docIntro is the top of docs/explaining.md; the rest is what the tests
// produce for each scenario of scenarios_test.go.
const docIntro = "# Explaining a failure\n\n" +
	"`interleave explain [DIR] ARTIFACT` says what went wrong in a recorded failure and\n" +
	"what would fix it, each claim shown by running the order again on PostgreSQL:\n\n" +
	"1. **The anomaly by name.** Each command of the failing order is classified as\n" +
	"   PostgreSQL plans it (the relations it reads and writes, the same footprints the\n" +
	"   search's reduction uses), narrowed to rows where the SQL names them\n" +
	"   (`WHERE id = 1`, `VALUES ('ann@example.com')`, bind parameters included). The\n" +
	"   commands of a session between two idle states form a transaction. Between\n" +
	"   committed transactions: **ww** (the later one overwrote what the earlier one\n" +
	"   wrote), **wr** (the later one read what the earlier one committed) and **rw**\n" +
	"   (an anti-dependency: the earlier one read a version the later one replaced,\n" +
	"   before that commit). A read under READ COMMITTED sees the database when its\n" +
	"   statement starts (when it completes for a write or `FOR UPDATE`, which wait\n" +
	"   for and see the latest committed row); under REPEATABLE READ and SERIALIZABLE\n" +
	"   when the transaction's first statement started (or was prepared, for a driver\n" +
	"   that prepares in a unit of its own). An insert overwrites no row; a relation a\n" +
	"   statement writes only through a trigger or a foreign key's action counts for\n" +
	"   the reads that depend on it, not as an overwrite. The shortest cycle (fewest\n" +
	"   anti-dependencies first) is named: with no rw edge G0 (dirty write) or G1c\n" +
	"   (circular information flow); with one, Adya's **G-single**: a **lost update**\n" +
	"   when the same two transactions also overwrote each other's row, a **phantom**\n" +
	"   when the write was an insert, **read skew** (non-repeatable read) otherwise;\n" +
	"   with two or more, **G2-item** (rows) or **G2** (a predicate read): a\n" +
	"   **read-only anomaly** when a read-only transaction closes a cycle of three or\n" +
	"   more, **write skew** otherwise. No cycle: \"no dependency cycle between\n" +
	"   transactions\", a failure no isolation level explains (a check and a write in\n" +
	"   separate transactions, application logic).\n" +
	"2. **The critical pair.** The dependent commands of the cycle (for an rw edge: the\n" +
	"   read and the writer's COMMIT), then the other dependencies between actors, are\n" +
	"   reversed one pair at a time (the later command, with the commands of its\n" +
	"   session between the two, moved before the earlier; everything else kept) and\n" +
	"   run; the first reversal that passes is the critical pair (`--max-reversals`,\n" +
	"   default 6).\n" +
	"3. **The fix class.** The same order runs again with every actor's sessions at\n" +
	"   REPEATABLE READ and at SERIALIZABLE (the start-up option\n" +
	"   `-c default_transaction_isolation=...`; no code changed). An actor that fails\n" +
	"   with 40001 or 40P01 is run again from the start, as code that retries would;\n" +
	"   the invariant then decides. The verdict says which level prevents the failure\n" +
	"   (\"SERIALIZABLE prevents this if the code retries on 40001\"), or \"a stronger\n" +
	"   isolation level does not prevent this: lock the row (FOR UPDATE), add a\n" +
	"   constraint, or widen the transaction\". When the code names its own level\n" +
	"   (`BEGIN ISOLATION LEVEL ...`) the start-up option does not reach it, and the\n" +
	"   explanation says so. When the recorded failure is PostgreSQL's own abort (a\n" +
	"   deadlock, 40P01, or a 40001 the code did not retry) the fix class is `retry`.\n" +
	"   When the recorded order no longer fails as recorded (changed code, or a\n" +
	"   recording with overlapping pairs), no pair and no level is claimed.\n\n" +
	"A search names the anomaly of every failure it saves (step 1: each command\n" +
	"classified on a database after the setup), then finds its critical pair (step 2:\n" +
	"at most `--critical-pair N` reversals, 6 by default, `Options.Output.Reversals`\n" +
	"in Go; 0 runs none): `interleave run` prints both under the failing order, whose\n" +
	"lines are numbered by the same release steps, `run --json` has them in\n" +
	"`firstFailure.anomaly` (docs/json/summary.v1.schema.json), the artifact keeps them\n" +
	"(`explanation`), `interleave report` draws the cycle over the lanes, and\n" +
	"`minimize` names its shorter order again. When it cannot be named, a note says\n" +
	"why and nothing else changes. Step 3 runs the order at stronger isolation levels,\n" +
	"so it is `interleave explain`'s (`interleave.Explain` in Go); explain leaves the\n" +
	"artifact as it is (it is the evidence, and may be committed or bundled with its\n" +
	"checksums).\n\n" +
	"`--json` prints the same as JSON (docs/json/explain.v1.schema.json), `--out FILE`\n" +
	"also writes it, and `--report FILE.html` writes the artifact's report with the\n" +
	"explanation and its cycle drawn over the lanes ([report-cycle.png](report-cycle.png)). To look at\n" +
	"the database in the middle of the order, `interleave replay DIR ARTIFACT\n" +
	"--pause-at N` stops after step N with every session open and prints a `psql`\n" +
	"command for the attempt's database and each actor's backend pid and transaction\n" +
	"state; Enter continues, Ctrl+C cleans up.\n\n" +
	"Limits: rows are known only where the SQL names them by equality (otherwise the\n" +
	"whole relation is assumed, which may add edges but never hides one); commands\n" +
	"whose footprint is not known (DDL, functions that may write) are left out of the\n" +
	"graph and counted in a note; an actor retried at a stronger level runs again from\n" +
	"its start, which is a retry only for actors that are one transaction.\n\n" +
	"The examples below are the six scenarios of `explain/scenarios_test.go`, found\n" +
	"by a search on PostgreSQL and explained by the test that writes this page\n" +
	"(`go test ./explain -run TestExplainingPage -update` rewrites it; the test fails\n" +
	"when the page and the output differ).\n"

// TestExplainingPage checks docs/explaining.md against what explain says
// of each scenario on a real server.
func TestExplainingPage(t *testing.T) {
	var b strings.Builder
	b.WriteString(docIntro)
	for _, k := range kinds {
		sc := k.sc()
		x := explainScenario(t, sc)
		title := x.Anomaly.Name
		if title == "" {
			title = "no cycle: check, then insert"
		}
		fmt.Fprintf(&b, "\n## %s: `%s`\n\n", strings.ToUpper(title[:1])+title[1:], sc.Name)
		fmt.Fprintf(&b, "The search's summary, under the failing order:\n\n```\n%s\n```\n\n", x.Anomaly.Line())
		b.WriteString("```\n$ interleave explain failure.json\n")
		fmt.Fprintf(&b, "Failure: %s\n%s```\n", x.Failure, x.Text())
		if sc.Name == "lost-update" {
			data, _ := json.MarshalIndent(x.Cycle, "", "  ")
			fmt.Fprintf(&b, "\nThe cycle in `--json` (`.cycle`):\n\n```json\n%s\n```\n", data)
		}
	}
	golden.Check(t, "../docs/explaining.md", []byte(b.String()))
}
