package web

import (
	"net/http"
	"strings"

	"switchboard/store"
	"switchboard/views"
)

// numberRemovePage is GET /settings/numbers/{number}/remove: what removing the number does, with
// the offer to clear its webhooks at the carrier and to release it there.
func (h *Handler) numberRemovePage(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	n, ok := h.carrierNumberOf(w, r, u)
	if !ok {
		return
	}
	v := h.numberRemoveView(u, n)
	v.Clear = v.CanClear
	h.render(w, r, u, http.StatusOK, "Remove "+v.Shown, views.NumberRemove(v))
}

func (h *Handler) numberRemoveView(u *ui, n store.PhoneNumber) views.NumberRemoveView {
	v := views.NumberRemoveView{ID: n.ID, Phone: n.Phone, Shown: u.showPhone(n.Phone), Label: carrierLabel(n.CarrierName()),
		Workspace: u.ws.Name, Carrier: n.CarrierName() != store.ProviderSandbox}
	if v.Carrier {
		v.CanClear = h.cfg.Accounts != nil && h.cfg.Accounts.Usable(n.CarrierName())
		if !v.CanClear {
			v.ClearProblem = "No " + v.Label + " account is in use on this server, so the number's settings at " + v.Label + " stay as they are."
		}
	}
	return v
}

// lastDigits are the last four digits of a phone, which confirm a release.
func lastDigits(phone string) string { return phone[max(0, len(phone)-4):] }

// numberRemove is POST /settings/numbers/{number}/remove. The number leaves the workspace, its
// webhooks cleared at the carrier when asked (and put back if removing fails). Releasing it at
// the carrier too is asked a second time, confirmed by typing its last four digits.
func (h *Handler) numberRemove(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	if !h.readUIForm(w, r, u) {
		return
	}
	n, ok := h.carrierNumberOf(w, r, u)
	if !ok {
		return
	}
	v := h.numberRemoveView(u, n)
	f := r.PostForm
	v.Clear, v.Release = f.Get("clear") == "on" && v.CanClear, f.Get("release") == "on" && v.CanClear
	if v.Release {
		v.Digits = strings.TrimSpace(f.Get("digits"))
		if f.Get("confirm") != "release" || v.Digits != lastDigits(n.Phone) {
			v.Confirming = true
			status := http.StatusOK
			if f.Get("confirm") == "release" {
				v.Errors, status = map[string]string{"digits": "Type the last four digits of " + v.Shown + " to release it"}, http.StatusUnprocessableEntity
			}
			h.render(w, r, u, status, "Release "+v.Shown, views.NumberRemove(v))
			return
		}
	}
	if !v.Carrier || !v.CanClear {
		if _, err := h.store.RemoveNumber(u.ws.ID, n.ID); err != nil {
			h.uiError(w, r, u, err)
			return
		}
		http.Redirect(w, r, "/settings/numbers?done=removed", http.StatusSeeOther)
		return
	}
	res, err := h.cfg.Accounts.Remove(r.Context(), u.ws.ID, n.ID, v.Clear || v.Release)
	if err != nil {
		status, msg := carrierFailure(r, err)
		v.Confirming, v.Error = false, "The number was not removed. "+msg
		h.render(w, r, u, status, "Remove "+v.Shown, views.NumberRemove(v))
		return
	}
	done := "removed"
	switch {
	case res.NotClear != "":
		done = "removed-kept"
	case res.Cleared:
		done = "removed-cleared"
	}
	if v.Release && res.CarrierID != "" {
		if _, err := h.cfg.Accounts.Release(r.Context(), n.CarrierName(), res.CarrierID); err != nil {
			status, msg := carrierFailure(r, err)
			nv, verr := h.numbersView(r, u)
			if verr != nil {
				h.uiError(w, r, u, verr)
				return
			}
			nv.Error = v.Shown + " was removed from " + u.ws.Name + ", but it was not released. " + msg +
				" It is listed under Add a number, where you can release it."
			h.render(w, r, u, status, "Numbers", views.Numbers(nv))
			return
		}
		done = "released"
	}
	http.Redirect(w, r, "/settings/numbers?done="+done, http.StatusSeeOther)
}

// numberReleasePage is GET /settings/numbers/release?carrier=…&id=…: a number of the carrier
// account that no workspace uses, and the confirmation that releases it.
func (h *Handler) numberReleasePage(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	q := r.URL.Query()
	v, status := h.numberReleaseView(r, u, q.Get("carrier"), q.Get("id"))
	h.render(w, r, u, status, "Release a number", views.NumberRelease(v))
}

func (h *Handler) numberReleaseView(r *http.Request, u *ui, carrierName, id string) (views.NumberReleaseView, int) {
	v := views.NumberReleaseView{Carrier: carrierName, Label: carrierLabel(carrierName), ID: id, Shown: "this number"}
	n, err := h.cfg.Accounts.AccountNumber(r.Context(), carrierName, id)
	if err != nil {
		status, msg := carrierFailure(r, err)
		v.Error = msg
		return v, status
	}
	v.Shown = u.showPhone(n.Phone)
	v.Phone = n.Phone
	return v, http.StatusOK
}

// numberRelease is POST /settings/numbers/release: the number goes back to the carrier once its
// last four digits are typed; a number a workspace has is refused.
func (h *Handler) numberRelease(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	if !h.readUIForm(w, r, u) {
		return
	}
	f := r.PostForm
	v, status := h.numberReleaseView(r, u, f.Get("carrier"), f.Get("id"))
	v.Digits = strings.TrimSpace(f.Get("digits"))
	if status == http.StatusOK && v.Digits != lastDigits(v.Phone) {
		v.Errors, status = map[string]string{"digits": "Type the last four digits of " + v.Shown + " to release it"}, http.StatusUnprocessableEntity
	}
	if status == http.StatusOK {
		if _, err := h.cfg.Accounts.Release(r.Context(), v.Carrier, v.ID); err != nil {
			status, v.Error = carrierFailure(r, err)
		}
	}
	if status != http.StatusOK {
		h.render(w, r, u, status, "Release a number", views.NumberRelease(v))
		return
	}
	http.Redirect(w, r, "/settings/numbers?done=released", http.StatusSeeOther)
}
