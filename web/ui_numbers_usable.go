package web

import (
	"errors"
	"net/http"

	"switchboard/store"
)

// usableNumbers lists the workspace's numbers the user may use: those limited to teams they
// are not in are left out of every choice of a number (new conversation, contact, broadcast).
func (h *Handler) usableNumbers(u *ui) ([]store.PhoneNumber, error) {
	numbers, err := h.store.Numbers(u.ws.ID)
	if err != nil {
		return nil, err
	}
	hidden, err := h.store.HiddenNumbers(u.ws.ID, u.user.ID)
	if err != nil || hidden == nil {
		return numbers, err
	}
	out := numbers[:0:0]
	for _, n := range numbers {
		if !hidden[n.ID] {
			out = append(out, n)
		}
	}
	return out, nil
}

// numberRefused answers a form whose number the user may not use with the 403 page and reports
// whether it did; any other error is left to the form.
func (h *Handler) numberRefused(w http.ResponseWriter, r *http.Request, u *ui, err error) bool {
	if !errors.Is(err, store.ErrForbidden) {
		return false
	}
	h.forbidden(w, r, u, "You are not allowed to use this number: it is limited to teams you are not in.")
	return true
}
