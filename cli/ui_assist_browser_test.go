package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"switchboard/assist/assisttest"
	"switchboard/internal/testutil"
)

// TestBrowserAssist drives Assist as a person does, against a recording model server: an
// admin turns it on; "Suggest reply" streams a draft into the reply box piece by piece, which
// is sent only when the person clicks "Send reply"; Cancel stops a suggestion and gives the box
// back; a summary is saved as an internal note; "Make it one segment" offers a checked rewrite.
// Screenshots of the thread with the assist controls at 1366 and 390 px.
func TestBrowserAssist(t *testing.T) {
	chrome := testutil.Chromium(t)
	model := assisttest.New(t, func(assisttest.Request) assisttest.Answer { return assisttest.Reply("unused") })
	f := newPagesFixture(t)
	addr := "127.0.0.1:" + testutil.FreePort(t)
	srv := startServer(t, addr, []string{"SWITCHBOARD_ASSIST_KEY=" + assistTestKey}, "-addr", addr, "-data="+f.data,
		"-log-requests=false", "-assist-url", model.URL, "-assist-model", "test-model")
	f.base = "http://" + addr

	b := openBrowser(t, chrome, 4*time.Minute, nil)
	b.failShot = "assist-failed"
	b.stepLimit = 20 * time.Second
	eval := func(expr string) string {
		t.Helper()
		v, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](expr))
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return v
	}
	until := func(expr string) chromedp.Action[chromedp.Void] {
		return poll(expr, nil, chromedp.WithPollingTimeout(15*time.Second), chromedp.WithPollingInterval(50*time.Millisecond))
	}
	box := `document.querySelector('[data-testid="reply-text"]')`
	outbound := func() int {
		var msgs []map[string]any
		f.api(t, "list-messages-action", map[string]any{"id": f.ws, "direction": "outbound"}, &msgs)
		return len(msgs)
	}
	b.signIn(f.base+"/login", "ana@example.com", "correct horse", testutil.TestID("new-conversation-form"))

	b.run("an admin turns Assist on",
		chromedp.Navigate(f.base+"/settings/workspace"),
		chromedp.WaitVisible(testutil.TestID("ws-assist")),
	)
	if hint := b.text(testutil.TestID("ws-assist-hint")); !strings.Contains(hint, strings.TrimSuffix(model.URL, "/v1")) || !strings.Contains(hint, "latest 20 messages") {
		t.Fatalf("the switch's hint does not say what goes where: %q", hint)
	}
	b.run("check the box and save",
		chromedp.Click(b.labelled("workspace-form", "Turn on Assist in this workspace")),
		chromedp.Click(testutil.TestID("workspace-save")),
		chromedp.WaitVisible(testutil.TestID("flash")),
		chromedp.ScrollIntoView(testutil.TestID("ws-assist")),
	)
	b.shot("assist-00-settings")

	var conv struct{ ID string }
	f.api(t, "create-conversation-action", map[string]any{"id": f.ws, "from": "+14155550100", "to": "+14155550123"}, &conv)
	b.run("open the thread",
		wide,
		chromedp.Navigate(f.base+"/inbox/"+conv.ID),
		chromedp.WaitVisible(testutil.TestID("simulate-form")),
	)
	b.run("the contact writes",
		chromedp.SendKeys(b.labelled("simulate-form", "Text from the contact"), "¿Puedo cambiar mi cita al martes?"),
		chromedp.Click(testutil.TestID("simulate-submit")),
		until(`Array.from(document.querySelectorAll('[data-testid="message-text"]')).some(e => e.textContent.includes("cambiar mi cita"))`),
		until(`!document.querySelector('[data-testid="assist-suggest"]').disabled`),
	)

	// A suggestion streams in: the model holds after two pieces until the test lets it go on.
	release := make(chan struct{})
	model.SetAnswer(func(assisttest.Request) assisttest.Answer {
		return assisttest.Answer{Chunks: []string{"Hola José, ", "el martes a las 10 ", "nos va bien."}, Hold: release, HoldAfter: 2}
	})
	b.run("Suggest reply streams a draft into the box",
		b.submit("assist", "assist-suggest", "Suggest reply"),
		until(box+`.value === "Hola José, el martes a las 10 "`),
	)
	if eval(`String(`+box+`.readOnly && document.querySelector('[data-testid="reply-submit"]').disabled && !document.querySelector('[data-testid="assist-cancel"]').hidden)`) != "true" {
		t.Fatal("while the draft streams, the box should be read-only, Send reply disabled and Cancel shown")
	}
	b.shot("assist-01-streaming-1366")
	close(release)
	b.run("the draft finishes",
		until(box+`.value === "Hola José, el martes a las 10 nos va bien."`),
		until(`document.querySelector('[data-testid="assist-status"]').textContent.includes("send it yourself")`),
		until(`document.querySelector('[data-testid="reply-segments"]').textContent.includes("1 segment")`),
	)
	if n := outbound(); n != 0 {
		t.Fatalf("%d outbound messages before the person clicked Send reply: a suggestion sent itself", n)
	}
	b.run("the person sends it",
		chromedp.Click(testutil.TestID("reply-submit")),
		until(`Array.from(document.querySelectorAll('[data-testid="message-text"]')).some(e => e.textContent === "Hola José, el martes a las 10 nos va bien.")`),
	)
	if n := outbound(); n != 1 {
		t.Fatalf("%d outbound messages after Send reply, want 1", n)
	}

	// Cancel stops a suggestion: the model's request ends and the box gets its text back.
	model.SetAnswer(func(assisttest.Request) assisttest.Answer {
		return assisttest.Answer{Chunks: []string{"Lo siento, "}, Stall: true, HoldAfter: 1}
	})
	b.run("type a draft, ask for a suggestion, cancel it",
		chromedp.SendKeys(testutil.TestID("reply-text"), "My own words"),
		chromedp.Click(testutil.TestID("assist-suggest")),
		until(box+`.value === "Lo siento, "`),
	)
	b.run("Cancel",
		b.submit("assist", "assist-cancel", "Cancel"),
		until(box+`.value === "My own words" && !`+box+`.readOnly`),
		until(`document.querySelector('[data-testid="assist-status"]').textContent.startsWith("Cancelled")`),
	)
	select {
	case <-model.Left():
	case <-time.After(10 * time.Second):
		t.Fatal("Cancel did not end the model's request")
	}

	// A summary, saved as an internal note.
	summary := "José asks to move his appointment to Tuesday. The team offered Tuesday at 10."
	model.SetAnswer(func(assisttest.Request) assisttest.Answer {
		return assisttest.Reply("José asks to move his appointment to Tuesday.", " The team offered Tuesday at 10.")
	})
	b.run("Summarize shows a summary",
		b.submit("assist", "assist-summarize", "Summarize"),
		until(`document.querySelector('[data-testid="assist-summary"]').value === `+jsString(summary)),
		until(`!document.querySelector('[data-testid="assist-summary"]').readOnly`),
	)
	b.run("phone-sized screenshot first, then desktop", chromedp.EmulateViewport(390, 844))
	b.shot("assist-02-summary-390")
	if eval(`String(document.documentElement.scrollWidth <= innerWidth)`) != "true" {
		t.Error("the thread with the assist panel scrolls sideways at 390 px")
	}
	b.run("desktop again", wide)
	b.shot("assist-03-summary-1366")
	b.run("save it as an internal note",
		b.submit("assist", "assist-save", "Save as internal note"),
		until(`Array.from(document.querySelectorAll('[data-testid="thread-comment"]')).some(e => e.textContent.includes(`+jsString(summary)+`))`),
		until(`document.querySelector('[data-testid="assist-panel"]').hidden`),
	)

	// Make it one segment: the rewrite the segment counter accepts replaces the long draft.
	fits := "Hola Jose, el martes a las 10 nos va bien. Responde SI para confirmar."
	model.SetAnswer(func(assisttest.Request) assisttest.Answer { return assisttest.Reply("“" + fits + "”") })
	long := strings.Repeat("Muchas gracias por escribirnos hoy. ", 6)
	b.run("a long draft becomes one segment",
		until(`(`+box+`.value = `+jsString(long)+`, `+box+`.dispatchEvent(new Event("input")), true)`),
		until(`document.querySelector('[data-testid="reply-segments"]').textContent.includes("2 segments")`),
		b.submit("assist", "assist-shorten", "Make it one segment"),
		until(box+`.value === `+jsString(fits)),
		until(`document.querySelector('[data-testid="reply-segments"]').textContent.includes("1 segment (GSM-7)")`),
	)
	b.run("phone width", chromedp.EmulateViewport(390, 844))
	b.shot("assist-04-thread-390")
	b.run("desktop width", wide)
	b.shot("assist-05-thread-1366")
	b.run("Put back my text undoes the rewrite",
		b.submit("assist", "assist-undo", "Put back my text"),
		until(box+`.value === `+jsString(long)),
	)
	if n := outbound(); n != 1 {
		t.Fatalf("%d outbound messages at the end, want the one the person sent", n)
	}
	for _, r := range model.Requests() {
		if r.Auth != "Bearer "+assistTestKey {
			t.Fatalf("a request went without the key: %q", r.Auth)
		}
	}
	if strings.Contains(srv.stdout.String()+srv.stderr.String(), assistTestKey) {
		t.Fatal("the server printed the key")
	}
}

// jsString writes s as a JavaScript string literal.
func jsString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}
