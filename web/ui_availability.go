package web

import (
	"errors"
	"net/http"

	"switchboard/automation"
	"switchboard/store"
	"switchboard/views"
)

// hoursState is the inbox header's "Open" or "Closed · opens Mon 09:00" for the workspace (""
// when it cannot be read: the header leaves it out).
func (h *Handler) hoursState(u *ui) string {
	st, err := h.store.OpenNow(u.ws.ID)
	switch {
	case err != nil:
		return ""
	case st.Open:
		return "Open"
	case st.Opens.IsZero():
		return "Closed"
	}
	return "Closed · opens " + automation.ShortOpening(st.Opens, h.now(), st.Location)
}

// setAvailability is POST /availability, the header's choice: available or away. It goes back
// to the page it was made on.
func (h *Handler) setAvailability(w http.ResponseWriter, r *http.Request, u *ui) {
	if !h.readUIForm(w, r, u) {
		return
	}
	err := h.store.SetAvailability(u.user.ID, r.PostForm.Get("availability"))
	var verr store.ValidationError
	switch {
	case errors.As(err, &verr):
		h.render(w, r, u, http.StatusBadRequest, "Bad request", views.ErrorPage("Bad request", "Choose available or away."))
		return
	case err != nil:
		h.uiError(w, r, u, err)
		return
	}
	back := localNext(r.PostForm.Get("back"))
	if back == "" {
		back = "/inbox"
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}
