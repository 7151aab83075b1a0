package report_test

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/pgserver"
	"github.com/pginterleave/interleave/report"
)

const chromiumPath = "/usr/bin/chromium"

// reservation: alice locks row 1 (BEGIN; SELECT ... FOR UPDATE), runs the
// hostile statement and commits; bob's UPDATE of the row is released while
// she holds the lock and waits on her. The invariant says the reserved row
// must not change, so the attempt is a violation.
func reservation() interleave.Scenario {
	return interleave.Scenario{
		Name: "reservation",
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, "CREATE TABLE t (id int PRIMARY KEY, v int NOT NULL); INSERT INTO t VALUES (1, 0)")
			return err
		},
		Actors: []interleave.Actor{
			{Name: "alice", Run: func(ctx context.Context, cs string) (any, error) {
				c, err := pgx.Connect(ctx, cs)
				if err != nil {
					return nil, err
				}
				defer c.Close(ctx)
				tx, err := c.Begin(ctx)
				if err != nil {
					return nil, err
				}
				if _, err := tx.Exec(ctx, "SELECT v FROM t WHERE id = 1 FOR UPDATE"); err != nil {
					return nil, err
				}
				if _, err := tx.Exec(ctx, hostile); err != nil {
					return nil, err
				}
				return "reserved", tx.Commit(ctx)
			}},
			{Name: "bob", Run: func(ctx context.Context, cs string) (any, error) {
				c, err := pgx.Connect(ctx, cs)
				if err != nil {
					return nil, err
				}
				defer c.Close(ctx)
				if _, err := c.Exec(ctx, "SELECT 1"); err != nil {
					return nil, err
				}
				_, err = c.Exec(ctx, "UPDATE t SET v = v + $1 WHERE id = 1", 1)
				return "updated", err
			}},
		},
		Invariant: func(ctx context.Context, db *pgx.Conn, _ []interleave.ActorResult) error {
			var v int
			if err := db.QueryRow(ctx, "SELECT v FROM t WHERE id = 1").Scan(&v); err != nil {
				return err
			}
			if v != 0 {
				return fmt.Errorf("Row 1 was reserved by alice, yet bob changed it: v = %d, want 0", v)
			}
			return nil
		},
	}
}

// recordReservation runs the scenario once on a managed PostgreSQL and
// returns its artifact, after checking it has what the page must show.
func recordReservation(t *testing.T, ctx context.Context) *artifact.Artifact {
	t.Helper()
	srv, err := pgserver.StartLocal(ctx, pgserver.LocalOptions{})
	if err != nil {
		t.Fatalf("this test needs PostgreSQL's server binaries (scripts/ensure-deps postgres): %v", err)
	}
	defer srv.Close()
	res, err := interleave.RunOnce(ctx, reservation(), interleave.Options{Server: interleave.ServerOptions{Use: srv}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomeViolation || !strings.Contains(res.Message, "yet bob changed it") {
		t.Fatalf("outcome %s: %s; want the violation", res.Outcome, res.Message)
	}
	a := res.Artifact
	if w := waitedUnit(a); w == nil || !strings.HasPrefix(w.SQL[0], "UPDATE") || strings.Join(w.LockWaits[0].BlockingActors, ",") != "alice" {
		t.Fatalf("the run recorded no wait of bob's UPDATE on alice; units: %+v", a.Units)
	}
	if findSQL(a, hostile) == nil {
		t.Fatalf("no unit ran %s", hostile)
	}
	return a
}

func waitedUnit(a *artifact.Artifact) *artifact.Unit {
	for i, u := range a.Units {
		if u.Actor == "bob" && len(u.LockWaits) > 0 {
			return &a.Units[i]
		}
	}
	return nil
}

func findSQL(a *artifact.Artifact, sql string) *artifact.Unit {
	for i, u := range a.Units {
		if !u.Prepare && len(u.SQL) > 0 && u.SQL[0] == sql {
			return &a.Units[i]
		}
	}
	return nil
}

func unitID(u *artifact.Unit) string { return fmt.Sprintf("%s %d.%d", u.Actor, u.Conn, u.Unit) }

// browserLog records what the page did that it must not do.
type browserLog struct {
	mu       sync.Mutex
	dialogs  []string
	requests []string
	errors   []string
}

func exceptionDescription(d *runtime.ExceptionDetails) string {
	if d.Exception != nil {
		return d.Exception.Description
	}
	return ""
}

func (l *browserLog) listen(ev any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch ev := ev.(type) {
	case *page.EventJavascriptDialogOpening:
		l.dialogs = append(l.dialogs, string(ev.Type)+": "+ev.Message)
	case *network.EventRequestWillBeSent:
		l.requests = append(l.requests, ev.Request.URL)
	case *runtime.EventExceptionThrown:
		l.errors = append(l.errors, ev.ExceptionDetails.Text+" "+exceptionDescription(ev.ExceptionDetails))
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
			msg := "console." + string(ev.Type) + ":"
			for _, arg := range ev.Args {
				msg += " " + arg.Description + string(arg.Value)
			}
			l.errors = append(l.errors, msg)
		}
	}
}

func (l *browserLog) snapshot() (dialogs, requests, errors []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.dialogs...), append([]string(nil), l.requests...), append([]string(nil), l.errors...)
}

// pageState is what the DOM shows of the timeline, the inspector and focus.
type pageState struct {
	Active         string   `json:"active"`
	Selected       []string `json:"selected"`
	InspectorTitle string   `json:"inspectorTitle"`
	InspectorSQL   []string `json:"inspectorSql"`
	InspectorText  string   `json:"inspectorText"`
}

const stateJS = `(() => {
  const id = (b) => b.dataset.actor + ' ' + b.dataset.conn + '.' + b.dataset.unit;
  const a = document.activeElement;
  const t = document.querySelector('#inspector-body .insp-title');
  return {
    active: a && a.classList.contains('unit-box') ? id(a) : (a ? a.tagName + '#' + a.id : ''),
    selected: [...document.querySelectorAll('.unit-box[aria-pressed="true"]')].map(id),
    inspectorTitle: t ? t.textContent : '',
    inspectorSql: [...document.querySelectorAll('#inspector-body pre.sql')].map((p) => p.textContent),
    inspectorText: document.getElementById('inspector-body').textContent,
  };
})()`

func TestReportInChromium(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("Chromium is not installed at %s (%v): run scripts/ensure-deps chromium", chromiumPath, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	a := recordReservation(t, ctx)
	waited, hostileUnit := waitedUnit(a), findSQL(a, hostile)

	dir := t.TempDir()
	file := writePage(t, dir, "report.html", a, "interleave replay ./examples/reservation failure.json")
	sampleFile := writePage(t, dir, "sample.html", sample(), "")

	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(chromiumPath),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(filepath.Join(dir, "profile")),
		chromedp.WindowSize(1440, 900),
	)
	defer cancelAlloc()
	var log browserLog
	bctx, cancelBrowser := chromedp.NewContext(alloc, chromedp.WithListener(log.listen))
	defer cancelBrowser()
	// Dismiss any dialog so that a page that opened one cannot hang the
	// test; the listener has already recorded it.
	dialogs := chromedp.Events(bctx, page.JavascriptDialogOpening)
	go func() {
		for _, err := range dialogs {
			if err != nil {
				return
			}
			chromedp.Call(bctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}
	}()
	run := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(bctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	eval := func(js string, out any) {
		t.Helper()
		raw, err := chromedp.Run(bctx, chromedp.Evaluate[[]byte](js))
		if err != nil {
			t.Fatalf("evaluate %s: %v", js, err)
		}
		if err := jsonUnmarshal(raw, out); err != nil {
			t.Fatalf("evaluate %s: %v (%s)", js, err, raw)
		}
	}
	// Record Content-Security-Policy violations from the first moment of
	// the document (DevTools scripts are exempt from the policy).
	run("install the violation recorder", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
			Source: `window.__violations = []; document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));`,
		})
		return err
	}))
	load := func(url string) {
		t.Helper()
		lctx, cancelLoad := context.WithTimeout(bctx, 30*time.Second)
		err := chromedp.Do(lctx, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("body.ready")))
		cancelLoad()
		if err != nil {
			var violations []string
			eval(`window.__violations || []`, &violations)
			t.Fatalf("%s did not load and run its script within 30s: %v; policy violations: %v", url, err, violations)
		}
	}
	pageURL := (&url.URL{Scheme: "file", Path: file}).String()
	sampleURL := (&url.URL{Scheme: "file", Path: sampleFile}).String()
	load(pageURL)

	checkStatic(t, eval, a, waited)
	// The full-page screenshot as the page opens, with bob's lock wait in
	// the inspector, for the documentation and for people.
	shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if len(shot) < 1000 || string(shot[1:4]) != "PNG" {
		t.Fatalf("the screenshot is not a PNG image (%d bytes)", len(shot))
	}
	// The documentation's screenshot is the one this test takes (so a run
	// refreshes docs/report-screenshot.png in the working tree).
	if err := os.WriteFile(filepath.Join("..", "docs", "report-screenshot.png"), shot, 0o644); err != nil {
		t.Fatal(err)
	}
	checkKeyboard(t, run, eval, waited, hostileUnit)
	checkCopy(t, bctx, run, "interleave replay ./examples/reservation failure.json")
	checkFilters(t, run, eval, a)
	checkLayouts(t, bctx, run, eval)

	checkPolicy := func(page string) {
		t.Helper()
		var violations []string
		eval(`window.__violations`, &violations)
		if len(violations) > 0 {
			t.Errorf("%s: Content-Security-Policy violations: %v", page, violations)
		}
	}
	checkPolicy("the reservation report")

	// The hand-built sample has what the real run lacks: an error, a pair,
	// a choice, a unit never released, a cancel request, parameters.
	load(sampleURL)
	checkSample(t, run, eval)
	checkPolicy("the sample report")

	gotDialogs, requests, pageErrors := log.snapshot()
	if len(pageErrors) > 0 {
		t.Errorf("the page's script failed: %v", pageErrors)
	}
	if len(gotDialogs) > 0 {
		t.Errorf("the page opened dialogs: %v", gotDialogs)
	}
	for _, r := range requests {
		if r != pageURL && r != sampleURL {
			t.Errorf("the page requested %s; it must load nothing but itself", r)
		}
	}
	if len(requests) == 0 {
		t.Error("no request was recorded, not even the page: the network listener does not work")
	}
	// The dialog listener works: a dialog opened from DevTools is seen.
	run("open a control dialog", chromedp.Evaluate[chromedp.Void](`setTimeout(() => alert('control'), 0)`))
	deadline := time.Now().Add(10 * time.Second)
	for gotDialogs, _, _ = log.snapshot(); len(gotDialogs) == 0 && time.Now().Before(deadline); gotDialogs, _, _ = log.snapshot() {
		time.Sleep(50 * time.Millisecond)
	}
	if fmt.Sprint(gotDialogs) != "[alert: control]" {
		t.Errorf("the control dialog was recorded as %v; the dialog check proves nothing", gotDialogs)
	}
}

// writePage renders a into dir/name and returns its path.
func writePage(t *testing.T, dir, name string, a *artifact.Artifact, replay string) string {
	t.Helper()
	var buf bytes.Buffer
	if err := report.Render(&buf, a, report.Options{ReplayCommand: replay}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
