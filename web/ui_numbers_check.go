package web

import (
	"errors"
	"net/http"
	"strings"

	"switchboard/store"
	"switchboard/views"
)

var checkNotices = map[string]string{
	"checked":     "Checked just now.",
	"sent":        "Checked just now, and the test text went out. Reply to it: the reply arrives in the inbox.",
	"reconnected": "Its texts come to Switchboard again.",
}

// numberCheckPage is GET /settings/numbers/{number}/check: the last reading of the number's
// settings at its carrier, what Switchboard expects there, and the form that checks again.
func (h *Handler) numberCheckPage(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	n, ok := h.carrierNumberOf(w, r, u)
	if !ok {
		return
	}
	v := h.numberCheckView(u, n)
	v.Notice = checkNotices[r.URL.Query().Get("done")]
	h.render(w, r, u, http.StatusOK, "Check "+v.Shown, views.NumberCheck(v))
}

// carrierNumberOf loads the route's number of the workspace, answering the 404 itself.
func (h *Handler) carrierNumberOf(w http.ResponseWriter, r *http.Request, u *ui) (store.PhoneNumber, bool) {
	n, err := h.store.Number(u.ws.ID, r.PathValue("number"))
	if errors.Is(err, store.ErrNotFound) {
		h.notFound(w, r, u, "such number")
		return n, false
	}
	if err != nil {
		h.uiError(w, r, u, err)
		return n, false
	}
	return n, true
}

func (h *Handler) numberCheckView(u *ui, n store.PhoneNumber) views.NumberCheckView {
	v := views.NumberCheckView{ID: n.ID, Shown: u.showPhone(n.Phone), Name: n.Name, Label: carrierLabel(n.CarrierName()),
		PublicURLProblem: h.cfg.Accounts.PublicURLProblem()}
	v.Receiving, v.Problem = receivingOf(&n)
	if n.Link != nil && !n.Link.CheckedAt.IsZero() {
		v.CheckedAt = fmtTime(n.Link.CheckedAt, u.ws.Location())
	}
	base := h.cfg.Accounts.PublicURL()
	switch n.CarrierName() {
	case store.ProviderTwilio:
		v.Expected = []views.Option{{Value: "Messaging webhook (SmsUrl), POST", Label: base + "/carrier/twilio/sms"},
			{Value: "Status callback", Label: base + "/carrier/twilio/status"}}
	case store.ProviderTelnyx:
		v.Expected = []views.Option{{Value: "Messaging profile's webhook URL", Label: base + "/carrier/telnyx/webhook"}}
	default:
		v.Receiving = ""
		v.Error = "Sandbox numbers reach no carrier: there is nothing to check."
	}
	return v
}

// numberCheck is POST /settings/numbers/{number}/check: action=check reads the settings at the
// carrier again, records what they are, and sends a test text when a phone is typed;
// action=reconnect points the number's texts back at Switchboard (Take it over).
func (h *Handler) numberCheck(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	if !h.readUIForm(w, r, u) {
		return
	}
	n, ok := h.carrierNumberOf(w, r, u)
	if !ok {
		return
	}
	typed := strings.TrimSpace(r.PostForm.Get("testTo"))
	done := "checked"
	var err error
	if r.PostForm.Get("action") == "reconnect" {
		done = "reconnected"
		n, err = h.cfg.Accounts.Reconnect(r.Context(), u.ws.ID, n.ID)
	} else {
		var to string
		if typed != "" {
			if to, err = u.readPhone("testTo", typed); err != nil {
				v := h.numberCheckView(u, n)
				v.TestTo, v.Errors = typed, fieldErrors(err, nil)
				h.render(w, r, u, http.StatusUnprocessableEntity, "Check "+v.Shown, views.NumberCheck(v))
				return
			}
		}
		if n, err = h.cfg.Accounts.Check(r.Context(), u.ws.ID, n.ID); err == nil && to != "" {
			done = "sent"
			_, err = h.cfg.Accounts.SendTest(r.Context(), n, to)
		}
	}
	if err != nil {
		status, msg := carrierFailure(r, err)
		if fresh, ferr := h.store.Number(u.ws.ID, n.ID); ferr == nil {
			n = fresh // a check that ran before a failed test text is shown
		}
		v := h.numberCheckView(u, n)
		v.TestTo, v.Error = typed, msg
		h.render(w, r, u, status, "Check "+v.Shown, views.NumberCheck(v))
		return
	}
	http.Redirect(w, r, "/settings/numbers/"+n.ID+"/check?done="+done, http.StatusSeeOther)
}
