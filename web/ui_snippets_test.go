package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"switchboard/store"
)

// TestUISnippets: an admin saves a snippet (bad merge tags refused beside the field, nothing
// stored); the thread fills it in for the conversation's contact, by the picker without
// JavaScript and by the script's endpoint; an unknown shortcut gets a clear message.
func TestUISnippets(t *testing.T) {
	e := newUIEnv(t)
	c := e.signIn(t, e.alice)
	res, body := e.send(t, c, "POST", "/settings/snippets", url.Values{"name": {"Hours"}, "shortcut": {"hours"}, "text": {"Hi {{nickname}}"}})
	wantPage(t, "an unknown merge tag", res, body, http.StatusUnprocessableEntity, `data-testid="error-text"`, "merge tag {{nickname}}")
	if l, _ := e.st.Snippets(e.a.ID); len(l) != 0 {
		t.Fatalf("%d snippets after a refused one, want 0", len(l))
	}
	res, _ = e.send(t, c, "POST", "/settings/snippets", url.Values{"name": {"Hours"}, "shortcut": {"hours"}, "text": {"Hi {{firstName|there}}, we open at 9."}})
	wantRedirect(t, res, "/settings/snippets?done=saved")
	res, body = e.send(t, c, "GET", "/settings/snippets", nil)
	wantPage(t, "the snippets page", res, body, http.StatusOK, "<h1>Snippets</h1>", "/hours")

	// A member may use snippets but not manage them.
	res, _ = e.send(t, e.signIn(t, e.mo), "GET", "/settings/snippets", nil)
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("a member opening /settings/snippets: %d, want 403", res.StatusCode)
	}

	if _, _, err := e.st.UpsertContact(e.a.ID, store.ContactInput{Phone: "+14155550123", FirstName: ptr("José"), Source: store.SourceAdmin}); err != nil {
		t.Fatal(err)
	}
	conv, _, err := e.st.CreateConversation(e.a.ID, e.numberA, "+14155550123")
	if err != nil {
		t.Fatal(err)
	}
	res, body = e.send(t, c, "GET", "/inbox/"+conv.ID+"/snippet?s=hours", nil)
	if res.StatusCode != http.StatusOK || body != "Hi José, we open at 9." {
		t.Fatalf("the filled snippet: %d %q", res.StatusCode, body)
	}
	res, body = e.send(t, c, "GET", "/inbox/"+conv.ID+"/snippet?s=nope", nil)
	if res.StatusCode != http.StatusNotFound || !strings.Contains(body, "There is no snippet /nope") {
		t.Fatalf("an unknown snippet: %d %q", res.StatusCode, body)
	}
	res, body = e.send(t, c, "GET", "/inbox/"+conv.ID+"?snippet=hours", nil)
	wantPage(t, "the picker without JavaScript", res, body, http.StatusOK, `data-testid="snippet-picker"`, ">Hi José, we open at 9.</textarea>")
	res, body = e.send(t, c, "GET", "/inbox/"+conv.ID+"?snippet=nope", nil)
	wantPage(t, "an unknown snippet by the picker", res, body, http.StatusOK, "There is no snippet /nope")
}
