package cli

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"switchboard/internal/testutil"
)

// TestBrowserAttachImage: in a thread, a photo chosen with the "Attach" input goes out with the
// reply; the thread shows it as a thumbnail, which links to the file served under /media/ as the
// picture itself. Screenshots at desktop (1280 px) and phone (390 px) widths go to SCREENSHOT_DIR
// as media-*.png.
func TestBrowserAttachImage(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	chrome := testutil.Chromium(t)
	photo := filepath.Join(t.TempDir(), "smile photo.png")
	if err := os.WriteFile(photo, testImage(t), 0o644); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	addr := "127.0.0.1:" + testutil.FreePort(t)
	base := "http://" + addr
	srv := startServer(t, addr, nil, "-addr", addr, "-data="+data, "-log-requests=false", "-base-url", base)
	b := openBrowser(t, chrome, 2*time.Minute, nil)
	b.failShot = "media-failed"
	b.setUpAdmin(setupLink(t, srv))
	b.setUpWorkspace()
	b.run("start a conversation",
		chromedp.SendKeys(chromedp.CSS("#new-to"), "+14155550123"),
		chromedp.Click(testutil.TestID("new-conversation-submit")),
		chromedp.WaitVisible(testutil.TestID("reply-form")),
	)
	b.run("attach the photo with the Attach input and send it",
		chromedp.SendKeys(chromedp.CSS("#reply-text"), "Here is your smile after the cleaning"),
		chromedp.SetUploadFiles(chromedp.CSS("#reply-files"), []string{photo}),
		poll(`document.querySelector('[data-attach-list]').textContent.includes("smile photo.png")`, nil),
	)
	// Paste and drop go through static/attach.js, which adds the files to the same input.
	pasteAndDrop := `(() => {
		const bytes = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="), c => c.charCodeAt(0));
		const form = document.querySelector('[data-testid="reply-form"]');
		const paste = new DataTransfer();
		paste.items.add(new File([bytes], "pasted.png", {type: "image/png"}));
		form.querySelector("textarea").dispatchEvent(new ClipboardEvent("paste", {clipboardData: paste, bubbles: true, cancelable: true}));
		const drop = new DataTransfer();
		drop.items.add(new File([bytes], "dropped.png", {type: "image/png"}));
		form.dispatchEvent(new DragEvent("drop", {dataTransfer: drop, bubbles: true, cancelable: true}));
		return document.querySelector("#reply-files").files.length;
	})()`
	n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](pasteAndDrop))
	if err != nil || n != 3 {
		t.Fatalf("after a paste and a drop the input holds %d files (%v), want 3", n, err)
	}
	b.shot("media-01-attached")
	b.run("the thread shows the thumbnail, loaded",
		chromedp.Click(testutil.TestID("reply-submit")),
		chromedp.WaitVisible(testutil.TestID("media-thumb")),
		poll(`document.querySelectorAll('[data-testid="media-thumb"]').length === 3`, nil),
		poll(`(() => { const i = document.querySelector('[data-testid="media-thumb"] img'); return i && i.complete && i.naturalWidth === 320; })()`, nil),
	)
	b.shot("media-02-thumbnail-desktop")
	b.run("at phone width", phone, chromedp.ScrollIntoView(testutil.TestID("media-thumb")))
	b.shot("media-03-thumbnail-phone")
	href, err := chromedp.Run(b.ctx, chromedp.AttributeValue(testutil.TestID("media-thumb"), "href"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^/media/[A-Za-z0-9_-]{22}/smile-photo\.png$`).MatchString(href.Value) {
		t.Fatalf("thumbnail links to %q, want /media/{token}/smile-photo.png", href.Value)
	}
	b.run("open the served URL: the picture itself",
		chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(base+href.Value),
		poll(`document.contentType === "image/png" && document.images.length === 1 && document.images[0].naturalWidth === 320`, nil),
	)
	b.shot("media-04-served")
	if _, err := chromedp.Run(b.ctx, chromedp.Navigate(base+"/inbox")); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(srv.stderr.String(), "panic") {
		t.Errorf("server stderr:\n%s", srv.stderr)
	}
}

// testImage is a 320×200 PNG: a gradient with a circle, so a screenshot shows it was decoded.
func testImage(t *testing.T) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 320, 200))
	for y := range 200 {
		for x := range 320 {
			c := color.RGBA{uint8(40 + x/3), uint8(90 + y/2), 200, 255}
			if dx, dy := x-160, y-100; dx*dx+dy*dy < 60*60 {
				c = color.RGBA{250, 200, 40, 255}
			}
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
