package web

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"switchboard/store"
)

// pauseBroadcast sends a broadcast from numberA to 120 numbers and refuses the first 30 copies
// it claims: the broadcast pauses with copies left waiting.
func pauseBroadcast(t *testing.T, e *uiEnv) store.Broadcast {
	t.Helper()
	var rec []string
	for i := range 120 {
		rec = append(rec, fmt.Sprintf("+1415556%04d", i))
	}
	b, err := e.st.SendBroadcast(e.a.ID, store.BroadcastInput{From: e.numberA, Recipients: rec, Text: "sale"})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := e.st.ClaimOutbound(100, 100, "", func(*store.PhoneNumber) int { return math.MaxInt32 })
	if err != nil {
		t.Fatal(err)
	}
	var outs []store.Outcome
	for i, m := range cl[0].Messages {
		o := store.Outcome{WorkspaceID: e.a.ID, MessageID: m.ID, Provider: "sandbox"}
		if i < 30 {
			o.Err = "twilio 30007: filtered"
		} else {
			o.ProviderIDs = []string{"sandbox-" + m.ID}
		}
		outs = append(outs, o)
	}
	if err := e.st.RecordOutcomes(outs); err != nil {
		t.Fatal(err)
	}
	if b, _ = e.st.Broadcast(e.a.ID, b.ID); b.Status != store.BroadcastPaused {
		t.Fatalf("status %q, want paused", b.Status)
	}
	return b
}

func TestUIPausedBroadcast(t *testing.T) {
	e := newUIEnv(t)
	b := pauseBroadcast(t, e)
	path := "/broadcasts/" + b.ID

	// A member sees why it paused, and that an admin resumes it; a member cannot.
	mo := e.signIn(t, e.mo)
	res, body := e.send(t, mo, "GET", path, nil)
	wantPage(t, "the paused page for a member", res, body, http.StatusOK, `data-testid="broadcast-paused"`,
		"30 of the first 100 copies the carrier judged failed (30 %", "A workspace admin can resume it.", ">Cancel broadcast<")
	if strings.Contains(body, `data-testid="broadcast-resume"`) {
		t.Error("a member is offered Resume")
	}
	res, _ = e.send(t, mo, "POST", path+"/resume", url.Values{})
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("a member's resume: %d, want 403", res.StatusCode)
	}

	alice := e.signIn(t, e.alice)
	res, body = e.send(t, alice, "GET", path, nil)
	wantPage(t, "the paused page for an admin", res, body, http.StatusOK, `data-testid="broadcast-resume"`, `hx-get="`+path+`/progress"`)
	res, _ = e.send(t, alice, "POST", path+"/resume", url.Values{})
	wantRedirect(t, res, path+"?done=resume")
	if got, _ := e.st.Broadcast(e.a.ID, b.ID); got.Status != store.BroadcastSending || got.ResumedAt == nil {
		t.Errorf("after the resume: %q, want sending", got.Status)
	}
	// Not paused any more: 409 with the page and why.
	res, body = e.send(t, alice, "POST", path+"/resume", url.Values{})
	wantPage(t, "resuming a sending broadcast", res, body, http.StatusConflict, "Not resumed: only a paused broadcast can be resumed; this one is sending.")
	res, _ = e.send(t, alice, "POST", "/broadcasts/01JDX0000000000000000000AA/resume", url.Values{})
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("resuming an unknown broadcast: %d, want 404", res.StatusCode)
	}
}

func TestUICancelPausedBroadcastCountsCopies(t *testing.T) {
	e := newUIEnv(t)
	b := pauseBroadcast(t, e)
	mo := e.signIn(t, e.mo)
	res, _ := e.send(t, mo, "POST", "/broadcasts/"+b.ID+"/cancel", url.Values{})
	wantRedirect(t, res, "/broadcasts/"+b.ID+"?done=cancel")
	res, body := e.send(t, mo, "GET", "/broadcasts/"+b.ID, nil)
	wantPage(t, "a cancelled paused broadcast", res, body, http.StatusOK, ">cancelled<", `data-testid="count-cancelled">20<`)
}

func TestUINumberRegistration(t *testing.T) {
	e := newUIEnv(t)
	n, err := e.st.CreateNumber(e.a.ID, store.NumberInput{Phone: "+18885550100", Name: "Toll-free", Carrier: store.ProviderTwilio})
	if err != nil {
		t.Fatal(err)
	}
	alice := e.signIn(t, e.alice)
	res, body := e.send(t, alice, "GET", "/settings/numbers", nil)
	wantPage(t, "the numbers page", res, body, http.StatusOK, `data-testid="number-registrations"`, `data-phone="+18885550100"`,
		`<option value="toll-free" selected>`, "+18885550100 is a toll-free number whose registration is unregistered")

	// The compose pages warn about it.
	for _, p := range []string{"/broadcasts/new", "/inbox"} {
		res, body = e.send(t, alice, "GET", p, nil)
		wantPage(t, p, res, body, http.StatusOK, `data-warning="+18885550100 is a toll-free number`)
	}

	conv, _, err := e.st.CreateConversation(e.a.ID, "+18885550100", "+14155550123")
	if err != nil {
		t.Fatal(err)
	}
	res, body = e.send(t, alice, "GET", "/inbox/"+conv.ID, nil)
	wantPage(t, "the thread of a toll-free number", res, body, http.StatusOK, `id="reply-from-warning"`, "+18885550100 is a toll-free number")

	// A bad value re-renders the page with the row as typed; a good one saves.
	path := "/settings/numbers/" + n.ID + "/registration"
	res, body = e.send(t, alice, "POST", path, url.Values{"type": {"toll-free"}, "registrationStatus": {"maybe"}, "verificationId": {"TFV-1"}})
	wantPage(t, "a bad status", res, body, http.StatusUnprocessableEntity, "The registration was not saved", `value="TFV-1"`)
	res, _ = e.send(t, alice, "POST", path, url.Values{"type": {"toll-free"}, "registrationStatus": {"approved"}, "verificationId": {"TFV-1"}})
	wantRedirect(t, res, "/settings/numbers?done=registration")
	if got, _ := e.st.Number(e.a.ID, n.ID); got.RegistrationStatus() != store.RegApproved || got.Registration.VerificationID != "TFV-1" {
		t.Errorf("stored registration %+v", got.Registration)
	}
	if _, body = e.send(t, alice, "GET", "/broadcasts/new", nil); strings.Contains(body, "+18885550100 is a toll-free number") {
		t.Error("an approved number still has a warning")
	}
	// Members cannot change it; another workspace's number is not found.
	res, _ = e.send(t, e.signIn(t, e.mo), "POST", path, url.Values{"registrationStatus": {"rejected"}})
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("a member's registration change: %d, want 403", res.StatusCode)
	}
	other, _ := e.st.Numbers(e.b.ID)
	res, _ = e.send(t, alice, "POST", "/settings/numbers/"+other[0].ID+"/registration", url.Values{"registrationStatus": {"approved"}})
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("another workspace's number: %d, want 404", res.StatusCode)
	}
}
