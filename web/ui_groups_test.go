package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestUIGroups(t *testing.T) {
	e := newUIEnv(t)
	c := e.signIn(t, e.mo)
	res, body := e.send(t, c, "POST", "/groups", url.Values{"name": {"  "}})
	wantPage(t, "a group without a name", res, body, http.StatusUnprocessableEntity, `data-testid="error-name"`, `role="alert"`)
	res, _ = e.send(t, c, "POST", "/groups", url.Values{"name": {"Patients"}})
	page := wantRedirect(t, res, "/groups/")
	page = strings.TrimSuffix(page, "?done=group")
	res, body = e.send(t, c, "POST", "/groups", url.Values{"name": {"patients"}})
	wantPage(t, "a taken group name", res, body, http.StatusUnprocessableEntity, `data-testid="error-name"`, `value="patients"`)

	res, body = e.send(t, c, "POST", page+"/members", url.Values{"phone": {"555 0123"}})
	wantPage(t, "a member with a bad number", res, body, http.StatusUnprocessableEntity, `data-testid="error-phone"`, `value="555 0123"`)
	for _, p := range []string{"+14155550123", "+14155550124"} {
		res, _ = e.send(t, c, "POST", page+"/members", url.Values{"phone": {p}})
		wantRedirect(t, res, page+"?done=added")
	}
	res, body = e.send(t, c, "GET", "/groups", nil)
	wantPage(t, "the group list", res, body, http.StatusOK, "<h1>Groups</h1>", ">Patients</a>", `<td data-label="Members" class="num" data-testid="group-size">2</td>`)
	ct, _ := e.st.ContactByPhone(e.a.ID, "+14155550124")
	res, _ = e.send(t, c, "POST", page+"/members/remove", url.Values{"contact": {ct.ID}})
	wantRedirect(t, res, page+"?done=removed")
	res, body = e.send(t, c, "GET", page, nil)
	wantPage(t, "the group page", res, body, http.StatusOK, `<h1 data-testid="group-title">Patients</h1>`, "(415) 555-0123", "1 member")
	if strings.Contains(body, "(415) 555-0124") {
		t.Error("a removed member is still listed")
	}

	res, body = e.send(t, c, "POST", page+"/rename", url.Values{"name": {""}})
	wantPage(t, "an empty new name", res, body, http.StatusUnprocessableEntity, `data-testid="error-name"`)
	res, _ = e.send(t, c, "POST", page+"/rename", url.Values{"name": {"Check-up due"}})
	wantRedirect(t, res, page+"?done=renamed")
	res, body = e.send(t, c, "POST", page+"/delete", url.Values{})
	wantPage(t, "delete without confirming", res, body, http.StatusUnprocessableEntity, `data-testid="error-confirm"`, "Check-up due")

	// Another workspace's group is a 404 for every form.
	bg, _ := e.st.CreateGroup(e.b.ID, "Beta group")
	for _, p := range []string{"", "/rename", "/delete", "/members", "/members/remove"} {
		method := "POST"
		if p == "" {
			method = "GET"
		}
		res, body = e.send(t, c, method, "/groups/"+bg.ID+p, url.Values{"name": {"x"}, "confirm": {"yes"}, "phone": {"+14155550123"}})
		if res.StatusCode != http.StatusNotFound || strings.Contains(body, "Beta group") {
			t.Errorf("%s /groups/{foreign}%s: %d, want the 404 page", method, p, res.StatusCode)
		}
	}
	if g, err := e.st.Group(e.b.ID, bg.ID); err != nil || g.Name != "Beta group" || g.Size != 0 {
		t.Errorf("another workspace's group after refused forms: %+v %v", g, err)
	}

	res, _ = e.send(t, c, "POST", page+"/delete", url.Values{"confirm": {"yes"}})
	wantRedirect(t, res, "/groups?done=deleted")
	res, _ = e.send(t, c, "GET", page, nil)
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("a deleted group's page: %d, want 404", res.StatusCode)
	}
}
