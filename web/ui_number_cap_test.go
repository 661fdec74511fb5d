package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"switchboard/store"
)

func TestUINumberDailyCap(t *testing.T) {
	e := newUIEnv(t)
	c := e.signIn(t, e.alice)
	ns, _ := e.st.Numbers(e.a.ID)
	id := ns[0].ID
	path := "/settings/numbers/" + id + "/daily-cap"
	for _, typed := range []string{"-1", "ten"} {
		res, body := e.send(t, c, "POST", path, url.Values{"dailyCap": {typed}})
		wantStatus(t, "daily cap "+typed, res, body, http.StatusUnprocessableEntity, `data-testid="daily-cap-error"`, "Daily cap must be a whole number", `value="`+typed+`"`)
	}
	res, _ := e.send(t, c, "POST", path, url.Values{"dailyCap": {"500"}})
	wantRedirect(t, res, "/settings/numbers?done=daily-cap")
	if n, _ := e.st.Number(e.a.ID, id); n.DailyCap != 500 {
		t.Fatalf("daily cap %d, want 500", n.DailyCap)
	}
	res, body := e.send(t, c, "GET", "/settings/numbers?done=daily-cap", nil)
	wantStatus(t, "numbers page", res, body, http.StatusOK, "Daily cap saved.", `value="500"`, "0 of 500 today")
	res, _ = e.send(t, c, "POST", path, url.Values{"dailyCap": {""}})
	wantRedirect(t, res, "/settings/numbers?done=daily-cap")
	if n, _ := e.st.Number(e.a.ID, id); n.DailyCap != 0 {
		t.Fatalf("an empty cap left %d, want none", n.DailyCap)
	}
	// B's number is not found from A; a member may not change it.
	bn, _ := e.st.Numbers(e.b.ID)
	res, body = e.send(t, c, "POST", "/settings/numbers/"+bn[0].ID+"/daily-cap", url.Values{"dailyCap": {"5"}})
	wantStatus(t, "B's number from A", res, body, http.StatusNotFound, `data-testid="error-page"`)
	res, _ = e.send(t, e.signIn(t, e.mo), "POST", path, url.Values{"dailyCap": {"5"}})
	if res.StatusCode != http.StatusForbidden {
		t.Fatalf("a member setting the cap: %d, want 403", res.StatusCode)
	}
}

func TestUIStateHoursSettingAndHeldReasons(t *testing.T) {
	e := newUIEnv(t)
	c := e.signIn(t, e.alice)
	form := url.Values{"name": {"Acme"}, "timeZone": {""}, "quietHours": {"off"}, "stateHoursShown": {"1"}, "stateHours": {"on"}}
	res, _ := e.send(t, c, "POST", "/settings/workspace", form)
	wantRedirect(t, res, "/settings/workspace?done=saved")
	if ws, _ := e.st.Workspace(e.a.ID); !ws.StateHours {
		t.Fatal("the state hours box did not turn them on")
	}
	res, body := e.send(t, c, "GET", "/settings/workspace", nil)
	wantStatus(t, "settings page", res, body, http.StatusOK, `value="on" checked data-testid="ws-state-hours"`)
	form.Del("stateHours")
	res, _ = e.send(t, c, "POST", "/settings/workspace", form)
	wantRedirect(t, res, "/settings/workspace?done=saved")
	if ws, _ := e.st.Workspace(e.a.ID); ws.StateHours {
		t.Fatal("an unchecked box left state hours on")
	}

	// Quiet hours around the present in San Francisco hold a copy there; the broadcast page
	// and the thread say why.
	la, _ := time.LoadLocation("America/Los_Angeles")
	h := time.Now().In(la).Hour()
	quiet := fmt.Sprintf("%02d:00-%02d:00", (h+23)%24, (h+2)%24)
	if _, err := e.st.UpdateWorkspace(e.a.ID, store.WorkspaceSettings{QuietHours: &quiet}); err != nil {
		t.Fatal(err)
	}
	b, err := e.st.SendBroadcast(e.a.ID, store.BroadcastInput{From: e.numberA, Text: "sale", Recipients: []string{"+14155550123"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "quiet hours " + strings.Replace(quiet, "-", "–", 1)
	res, body = e.send(t, c, "GET", "/broadcasts/"+b.ID, nil)
	wantStatus(t, "broadcast page", res, body, http.StatusOK, `data-testid="broadcast-held-row"`, "1 ×", want)
	msgs, _ := e.st.ListMessages(e.a.ID, store.MessageFilter{Limit: 1})
	res, body = e.send(t, c, "GET", "/inbox/"+msgs[0].ConversationID, nil)
	wantStatus(t, "thread", res, body, http.StatusOK, `data-testid="message-held"`, want)
}
