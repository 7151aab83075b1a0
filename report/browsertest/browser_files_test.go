package browsertest_test

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
)

// checkCopy clicks the copy button and reads the clipboard back.
func checkCopy(tb *tab, want string) {
	t := tb.t
	t.Helper()
	for _, name := range []string{"clipboard-read", "clipboard-write"} {
		if _, err := chromedp.CallBrowser(tb.ctx, browser.SetPermission, browser.SetPermissionParams{
			Permission: &browser.PermissionDescriptor{Name: name}, Setting: browser.PermissionSettingGranted,
		}); err != nil {
			t.Fatalf("grant %s: %v", name, err)
		}
	}
	tb.run("click Copy", chromedp.Click(chromedp.CSS("#copy")))
	tb.poll("the copy status", `document.getElementById('copy-status').textContent !== ''`)
	var status, got string
	tb.eval(`document.getElementById('copy-status').textContent`, &status)
	tb.eval(`navigator.clipboard.readText()`, &got)
	if got != want || status != "Copied." {
		t.Errorf("after Copy the status is %q and the clipboard holds %q; want %q", status, got, want)
	}
}

// download clicks "Download JSON" and returns the file Chromium saved,
// named name, waiting for the browser to say the download completed.
func download(tb *tab, name string) []byte {
	t := tb.t
	t.Helper()
	dir := t.TempDir()
	on := true
	if _, err := chromedp.CallBrowser(tb.ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir, EventsEnabled: &on,
	}); err != nil {
		t.Fatalf("allow downloads: %v", err)
	}
	ctx, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
	defer cancel()
	// The subscription starts here, before the click, so that no event is missed.
	events := chromedp.BrowserEvents(ctx, browser.DownloadProgress)
	tb.run("click Download JSON", chromedp.Click(chromedp.CSS("#download")))
	var state browser.DownloadProgressState
	for ev, err := range events {
		if err != nil {
			t.Fatalf("waiting for the download: %v", err)
		}
		if state = ev.State; state != browser.DownloadProgressStateInProgress {
			break
		}
	}
	if state != browser.DownloadProgressStateCompleted {
		t.Fatalf("the download ended %q; want completed", state)
	}
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		entries, _ := os.ReadDir(dir)
		t.Fatalf("the download is not saved as %s: %v (the directory holds %v)", name, err, entries)
	}
	return data
}
