package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"switchboard/store"
)

// The compose page counts the copy as it goes out: the opt-out footer is in the preview and in
// its segment count, and the server answers the worst case over the recipients chosen so far.
func TestUIBroadcastPreviewCountsTheCopyAsSent(t *testing.T) {
	e := newUIEnv(t)
	g, _ := e.st.CreateGroup(e.a.ID, "Tuesday patients")
	for _, p := range []string{"+14155550123", "+14155550124"} {
		if _, _, err := e.st.AddToGroup(e.a.ID, g.Name, p); err != nil {
			t.Fatal(err)
		}
	}
	for phone, first := range map[string]string{"+14155550123": "Al", "+14155550124": "Maximiliana-Josefina"} {
		if _, _, err := e.st.UpsertContact(e.a.ID, store.ContactInput{Phone: phone, FirstName: ptr(first)}); err != nil {
			t.Fatal(err)
		}
	}
	c := e.signIn(t, e.mo)
	text := "Hi {{firstName}} – your cleaning is on Tuesday at 9."
	res, body := e.send(t, c, "POST", "/broadcasts/new/preview", url.Values{"from": {e.numberA}, "text": {text},
		"groupIds": {g.ID}, "optOutInstructions": {"on"}, "optOutInstructionsShown": {"1"}}, "HX-Request", "true")
	wantPage(t, "the worst copy", res, body, http.StatusOK, `data-testid="bc-worst"`,
		"2 recipients: the longest copy, to Maximiliana-Josefina, takes <strong>2 segments (UCS-2)</strong>")
	if strings.Contains(body, "<html") {
		t.Error("the preview fragment is a whole page")
	}
	res, body = e.send(t, c, "POST", "/broadcasts/new/preview", url.Values{"from": {e.numberA}, "text": {text},
		"groupIds": {g.ID}, "optOutInstructionsShown": {"1"}}, "HX-Request", "true")
	wantPage(t, "the worst copy without the footer", res, body, http.StatusOK, "takes <strong>1 segment (UCS-2)</strong>")
	res, body = e.send(t, c, "POST", "/broadcasts/new/preview", url.Values{"text": {text}}, "HX-Request", "true")
	wantPage(t, "no recipients yet", res, body, http.StatusOK, "Choose recipients to see their longest copy.")

	// A form sent back with an error shows the sample with its footer, counted with it.
	res, body = e.send(t, c, "POST", "/broadcasts/new", url.Values{"from": {e.numberA}, "text": {"Hi {{firstName}} – see you at 9."},
		"groupIds": {g.ID}, "optOutInstructions": {"on"}, "optOutInstructionsShown": {"1"}, "when": {"later"}})
	wantPage(t, "the compose page again", res, body, http.StatusUnprocessableEntity,
		"Preview for Al", "Hi Al – see you at 9. Reply STOP to opt out.</p>", "1 segment (UCS-2)", "2 recipients: the longest copy, to Al, takes <strong>1 segment (UCS-2)</strong>")
}
