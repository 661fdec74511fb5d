package web

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"switchboard/store"
)

// A keyword opt-out is the contact's own: the contact page offers no lift, even to an admin,
// and a forged lift is refused.
func TestUIKeywordOptOutOnlyTheContactLifts(t *testing.T) {
	e := newUIEnv(t)
	ct, err := e.st.CreateContact(e.a.ID, store.ContactInput{Phone: "+14155550130", FirstName: ptr("Kim")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.ReceiveMessage(e.a.ID, store.InboundMessage{From: ct.Phone(), To: e.numberA, Text: "Stop.", Keyword: store.KeywordStop}); err != nil {
		t.Fatal(err)
	}
	c := e.signIn(t, e.alice)
	page := "/contacts/" + ct.ID
	res, body := e.send(t, c, "GET", page, nil)
	wantPage(t, "a keyword opt-out's contact page", res, body, http.StatusOK, `data-testid="contact-optout-contact-only"`,
		`data-testid="consent-row" data-status="revoked"`)
	if strings.Contains(body, "Lift the opt-out") || strings.Contains(body, "Opt back in") {
		t.Error("the contact page offers to lift a keyword opt-out")
	}
	res, _ = e.send(t, c, "POST", page+"/optout", url.Values{"optedOut": {"false"}, "confirm": {"yes"}, "reason": {"they called"}})
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("a forged lift of a keyword opt-out: %d, want 403", res.StatusCode)
	}
	if out, _ := e.st.IsOptedOut(e.a.ID, ct.Phone()); !out {
		t.Error("a keyword opt-out was lifted by an admin")
	}

	// Consent recorded on the page: a future time is refused beside its field.
	res, body = e.send(t, c, "POST", page+"/consent", url.Values{"status": {"granted"}, "at": {"2999-01-01T00:00"}, "source": {"form"}})
	wantPage(t, "a future consent", res, body, http.StatusUnprocessableEntity, "ust not be in the future")
	res, _ = e.send(t, c, "POST", page+"/consent", url.Values{"status": {"granted"}, "at": {"2025-03-01T09:30:00Z"}, "source": {"form"}, "method": {"Paper form at the front desk"}})
	wantRedirect(t, res, page+"?done=consent")
	res, body = e.send(t, c, "GET", page, nil)
	wantPage(t, "the consent history", res, body, http.StatusOK, "Paper form at the front desk", "recorded by")
}

// A text asking to stop in other words shows a banner whose one click opts out and clears the
// label.
func TestUIPossibleOptOutBanner(t *testing.T) {
	e := newUIEnv(t)
	r, err := e.st.ReceiveMessage(e.a.ID, store.InboundMessage{From: "+14155550131", To: e.numberA, Text: "please stop texting me", PossibleOptOut: true})
	if err != nil {
		t.Fatal(err)
	}
	c := e.signIn(t, e.mo)
	page := "/inbox/" + r.Message.ConversationID
	res, body := e.send(t, c, "GET", page, nil)
	wantPage(t, "the flagged thread", res, body, http.StatusOK, `data-testid="possible-optout-banner"`, "possible opt-out")
	res, _ = e.send(t, c, "POST", page+"/optout", nil)
	wantRedirect(t, res, page+"?done=optout")
	o, ok, _ := e.st.OptOutOf(e.a.ID, "+14155550131")
	if !ok || o.Reason != store.OptOutAdmin || o.UserID != e.mo.ID {
		t.Errorf("opt-out after the banner = %+v %v; want admin by the member", o, ok)
	}
	conv, _ := e.st.Conversation(e.a.ID, r.Message.ConversationID)
	if slices.Contains(conv.Labels, store.LabelPossibleOptOut) {
		t.Error("the label stayed after opting out")
	}
	res, body = e.send(t, c, "GET", page, nil)
	if res.StatusCode != http.StatusOK || strings.Contains(body, `data-testid="possible-optout-banner"`) {
		t.Error("the banner still shows after opting out")
	}
}

// A 30007 failure shows in plain words in the thread; a 30006 one flags the number a landline
// on the contact page.
func TestUICarrierErrorExplained(t *testing.T) {
	e := newUIEnv(t)
	ct, err := e.st.CreateContact(e.a.ID, store.ContactInput{Phone: "+14155550140", FirstName: ptr("Lee")})
	if err != nil {
		t.Fatal(err)
	}
	m, err := e.st.SendMessage(e.a.ID, store.SendInput{From: e.numberA, To: []string{ct.Phone()}, Text: "Big sale bit.ly/x"})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := e.st.ClaimOutbound(10, 10, "", func(*store.PhoneNumber) int { return 100 })
	if err != nil || len(cl) != 1 {
		t.Fatalf("claim = %d, %v", len(cl), err)
	}
	if err := e.st.RecordOutcomes([]store.Outcome{{WorkspaceID: e.a.ID, MessageID: m.ID, Provider: "twilio", Err: "twilio 30007: Message filtered"}}); err != nil {
		t.Fatal(err)
	}
	c := e.signIn(t, e.mo)
	res, body := e.send(t, c, "GET", "/inbox/"+m.ConversationID, nil)
	wantPage(t, "a thread with a 30007 failure", res, body, http.StatusOK, `data-testid="message-error-explained"`, "filtered the message", "What to do:")

	m2, _ := e.st.SendMessage(e.a.ID, store.SendInput{From: e.numberA, To: []string{ct.Phone()}, Text: "hello"})
	if _, err := e.st.ClaimOutbound(10, 10, "", func(*store.PhoneNumber) int { return 100 }); err != nil {
		t.Fatal(err)
	}
	if err := e.st.RecordOutcomes([]store.Outcome{{WorkspaceID: e.a.ID, MessageID: m2.ID, Provider: "twilio", Err: "twilio 30006: Landline"}}); err != nil {
		t.Fatal(err)
	}
	res, body = e.send(t, c, "GET", "/contacts/"+ct.ID, nil)
	wantPage(t, "a landline contact", res, body, http.StatusOK, `data-testid="contact-landline"`, "Broadcasts skip this number")
}
