package browsertest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/internal/testkit/testenv"
	"github.com/pginterleave/interleave/report"
)

// The browser tests share one headless Chromium (a tab each): starting it is
// most of their cost on a small machine.
var chromium struct {
	once    sync.Once
	path    string
	err     error
	ctx     context.Context // the browser's first tab; new tabs derive from it
	cancel  func()
	profile string
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if chromium.cancel != nil {
		chromium.cancel()
		os.RemoveAll(chromium.profile)
	}
	os.Exit(code)
}

// findChromium is $INTERLEAVE_CHROMIUM when set, else Debian's chromium,
// else one on PATH.
func findChromium() (string, error) {
	if p := os.Getenv("INTERLEAVE_CHROMIUM"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("INTERLEAVE_CHROMIUM: %w", err)
		}
		return p, nil
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium", nil
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no chromium at /usr/bin/chromium or on PATH")
}

// sharedBrowser returns the shared browser, starting it on first use.
// Without Chromium the test fails in CI and is skipped elsewhere, saying
// what to install (internal/testkit/testenv).
func sharedBrowser(t *testing.T) context.Context {
	t.Helper()
	chromium.once.Do(func() {
		chromium.path, chromium.err = findChromium()
		if chromium.err != nil {
			return
		}
		chromium.profile, chromium.err = os.MkdirTemp("", "interleave-report-chromium-")
		if chromium.err != nil {
			return
		}
		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
			chromedp.ExecPath(chromium.path),
			chromedp.Headless,
			chromedp.NoSandbox,
			chromedp.DisableGPU,
			chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true),
			chromedp.Flag("no-first-run", true),
			chromedp.Flag("disable-quic", true),
			chromedp.Flag("disable-dev-shm-usage", true),
			chromedp.UserDataDir(chromium.profile),
			chromedp.WindowSize(1280, 800),
		)
		ctx, cancelBrowser := chromedp.NewContext(alloc)
		chromium.ctx = ctx
		chromium.cancel = func() { cancelBrowser(); cancelAlloc() }
		chromium.err = chromedp.Do(ctx)
	})
	testenv.Require(t, "Chromium (for the report's browser tests)", chromium.err,
		"install Chromium (apt-get install -y chromium; scripts/ensure-deps chromium) or set INTERLEAVE_CHROMIUM to its binary")
	return chromium.ctx
}

// tab is one page in the shared browser, with a record of what the page did
// that it must not do.
type tab struct {
	t   *testing.T
	ctx context.Context
	log *browserLog
}

func newTab(t *testing.T) *tab {
	t.Helper()
	b := sharedBrowser(t)
	log := &browserLog{}
	ctx, cancel := chromedp.NewContext(b, chromedp.WithListener(log.listen))
	t.Cleanup(cancel)
	tb := &tab{t: t, ctx: ctx, log: log}
	// Dismiss any dialog so that a page that opened one cannot hang the
	// test; the listener has already recorded it.
	tb.run("start the tab")
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for _, err := range dialogs {
			if err != nil {
				return
			}
			chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}
	}()
	// Record Content-Security-Policy violations from the first moment of
	// each document (DevTools scripts are exempt from the policy).
	tb.run("install the violation recorder", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
			Source: `window.__violations = []; document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));`,
		})
		return err
	}), chromedp.EmulateViewport(1280, 800))
	return tb
}

func (tb *tab) run(what string, actions ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	if err := chromedp.Do(tb.ctx, actions...); err != nil {
		tb.t.Fatalf("%s: %v", what, err)
	}
}

func (tb *tab) eval(js string, out any) {
	tb.t.Helper()
	raw, err := chromedp.Run(tb.ctx, chromedp.Evaluate[[]byte](js, chromedp.EvalAwaitPromise))
	if err != nil {
		tb.t.Fatalf("evaluate %s: %v", js, err)
	}
	if out == nil {
		return
	}
	if err := json.Unmarshal(raw, out); err != nil {
		tb.t.Fatalf("evaluate %s: %v (%s)", js, err, raw)
	}
}

// poll waits until the expression is truthy in the page.
func (tb *tab) poll(what, js string) {
	tb.t.Helper()
	if _, err := chromedp.Run(tb.ctx, chromedp.Poll[[]byte](js, chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		var violations []string
		tb.eval(`window.__violations || []`, &violations)
		_, _, pageErrors := tb.log.snapshot()
		tb.t.Fatalf("%s: %s never held: %v; page errors %v; policy violations %v", what, js, err, pageErrors, violations)
	}
}

// load opens the file at path and waits until the page's script has run.
func (tb *tab) load(path string) string {
	tb.t.Helper()
	u := (&url.URL{Scheme: "file", Path: path}).String()
	tb.run("open "+path, chromedp.Navigate(u))
	tb.poll("load "+path, `document.body && document.body.classList.contains('ready')`)
	return u
}

// clean checks the page loaded nothing but the given files, opened no
// dialog, threw nothing and broke no Content-Security-Policy rule.
func (tb *tab) clean(allowed ...string) {
	tb.t.Helper()
	var violations []string
	tb.eval(`window.__violations`, &violations)
	if len(violations) > 0 {
		tb.t.Errorf("Content-Security-Policy violations: %v", violations)
	}
	dialogs, requests, pageErrors := tb.log.snapshot()
	if len(pageErrors) > 0 {
		tb.t.Errorf("the page's script failed: %v", pageErrors)
	}
	if len(dialogs) > 0 {
		tb.t.Errorf("the page opened dialogs: %v", dialogs)
	}
	ok := map[string]bool{}
	for _, a := range allowed {
		ok[a] = true
	}
	for _, r := range requests {
		if !ok[r] {
			tb.t.Errorf("the page requested %s; it must load nothing but itself", r)
		}
	}
	if len(requests) == 0 {
		tb.t.Error("no request was recorded, not even the page: the network listener does not work")
	}
}

// screenshot saves a full-page screenshot as name in
// $INTERLEAVE_SCREENSHOT_DIR, or else in a temporary directory, and returns
// it.
func (tb *tab) screenshot(name string) []byte {
	tb.t.Helper()
	shot, err := chromedp.Run(tb.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		tb.t.Fatal(err)
	}
	if len(shot) < 1000 || !bytes.HasPrefix(shot, []byte("\x89PNG")) {
		tb.t.Fatalf("the screenshot is not a PNG image (%d bytes)", len(shot))
	}
	dir := os.Getenv("INTERLEAVE_SCREENSHOT_DIR")
	if dir == "" {
		dir = tb.t.TempDir()
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		tb.t.Fatal(err)
	}
	tb.t.Logf("screenshot %s", path)
	return shot
}

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

// writePage renders a into dir/name and returns its path.
func writePage(t *testing.T, dir, name string, a *artifact.Artifact, opts report.Options) string {
	t.Helper()
	var buf bytes.Buffer
	if err := report.Render(&buf, a, opts); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// cliCounts is the line the CLI prints about a recorded order (explore.go's
// summary), built from the same artifact.ReleaseCounts.
func cliCounts(a *artifact.Artifact) string {
	c := a.ReleaseCounts()
	if c.Preparations > 0 {
		return fmt.Sprintf("Recorded release units: %d (plus %d statement preparations); actor switches: %d.", c.Executing, c.Preparations, c.Switches)
	}
	return fmt.Sprintf("Recorded release units: %d; actor switches: %d.", c.Executing, c.Switches)
}

// sample is the report package's sample artifact (its TestSampleFile keeps
// ../testdata/sample.json equal to it).
func sample() *artifact.Artifact {
	a, err := artifact.Read(filepath.Join("..", "testdata", "sample.json"))
	if err != nil {
		panic(fmt.Sprintf("the report's sample artifact: %v", err))
	}
	return a
}

// hostile is the SQL of the sample's unit bob#0 (report_test.go's
// constant): text that would end the page's script if it were not
// escaped.
const hostile = "SELECT '</script><script>alert(1)</script>'"
