package testutil

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

var chromiumNames = []string{"chromium", "chromium-browser", "google-chrome"}

// Chromium returns the path of the browser the browser tests drive. Without one the test is
// skipped with the reason, except in CI (CI=true), where a missing browser is a failure. Under
// -short the browser tests are skipped: they take seconds each.
func Chromium(t testing.TB) string {
	t.Helper()
	SkipIfShort(t, "the headless Chromium test")
	for _, name := range chromiumNames {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	reason := fmt.Sprintf("no Chromium found on PATH (looked for %s); install the Debian package chromium", strings.Join(chromiumNames, ", "))
	if os.Getenv("CI") == "true" {
		t.Fatal(reason)
	}
	t.Skip(reason)
	return ""
}

// StartChromium launches one headless browser at path with a fresh profile and returns its
// context; the whole browser lives at most bound, whatever hangs, and ends with the test.
func StartChromium(t testing.TB, path string, bound time.Duration) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox, // the tests run as root
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
	}
	bctx, cancelBound := context.WithTimeout(context.Background(), bound)
	t.Cleanup(cancelBound)
	alloc, cancelAlloc := chromedp.NewExecAllocator(bctx, opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(alloc, chromedp.WithErrorf(t.Logf))
	t.Cleanup(cancel)
	// The first Do starts the browser, which lives as long as the context it gets.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start Chromium (%s): %v", path, err)
	}
	return ctx
}

// TestID selects the first element with data-testid id, the templates' stable hooks for tests.
func TestID(id string) chromedp.CSS { return chromedp.CSS(fmt.Sprintf("[data-testid=%q]", id)) }
