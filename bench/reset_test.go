package bench

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave/internal/testkit/fixture"
	"github.com/pginterleave/interleave/pgserver"
)

// BenchmarkReset compares ways to give an attempt a fresh database holding
// the counter setup, interleaved in one loop:
//   - schema: drop user schemas, recreate public, rerun the setup (the default)
//   - clone: CREATE DATABASE ... TEMPLATE (the setup ran once) and DROP DATABASE
//   - create: CREATE DATABASE, run the setup, DROP DATABASE
//
// It reports milliseconds for each and their ratio to the schema reset.
func BenchmarkReset(b *testing.B) {
	ctx := context.Background()
	db, err := server.CreateDatabase(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer server.DropDatabase(ctx, db)
	control, err := pgx.Connect(ctx, server.ConnString(db))
	if err != nil {
		b.Fatal(err)
	}
	defer control.Close(ctx)
	pristine, err := pgserver.Snapshot(ctx, control)
	if err != nil {
		b.Fatal(err)
	}
	// The template: a database holding the setup, with nobody connected.
	tpl, err := server.CreateDatabase(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer server.DropDatabase(ctx, tpl)
	tc, err := pgx.Connect(ctx, server.ConnString(tpl))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := tc.Exec(ctx, fixture.CounterSetup); err != nil {
		b.Fatal(err)
	}
	tc.Close(ctx)
	admin, err := pgx.Connect(ctx, server.ConnString("postgres"))
	if err != nil {
		b.Fatal(err)
	}
	defer admin.Close(ctx)

	var tSchema, tClone, tCreate time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if err := pgserver.ResetDatabase(ctx, control, db, pristine); err != nil {
			b.Fatal(err)
		}
		if _, err := control.Exec(ctx, fixture.CounterSetup); err != nil {
			b.Fatal(err)
		}
		tSchema += time.Since(start)

		start = time.Now()
		if _, err := admin.Exec(ctx, "CREATE DATABASE bench_clone TEMPLATE "+tpl); err != nil {
			b.Fatal(err)
		}
		if _, err := admin.Exec(ctx, "DROP DATABASE bench_clone"); err != nil {
			b.Fatal(err)
		}
		tClone += time.Since(start)

		start = time.Now()
		if _, err := admin.Exec(ctx, "CREATE DATABASE bench_create"); err != nil {
			b.Fatal(err)
		}
		c, err := pgx.Connect(ctx, server.ConnString("bench_create"))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.Exec(ctx, fixture.CounterSetup); err != nil {
			b.Fatal(err)
		}
		c.Close(ctx)
		if _, err := admin.Exec(ctx, "DROP DATABASE bench_create"); err != nil {
			b.Fatal(err)
		}
		tCreate += time.Since(start)
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(tSchema.Microseconds())/n/1000, "schema-ms")
	b.ReportMetric(float64(tClone.Microseconds())/n/1000, "clone-ms")
	b.ReportMetric(float64(tCreate.Microseconds())/n/1000, "create-ms")
	b.ReportMetric(float64(tClone)/float64(tSchema), "clone/schema")
	b.ReportMetric(float64(tCreate)/float64(tSchema), "create/schema")
}
