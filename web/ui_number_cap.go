package web

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"switchboard/store"
	"switchboard/views"
)

// dailyCapOf fills a numbers-page row's daily cap and what counts toward today.
func (h *Handler) dailyCapOf(u *ui, n *store.PhoneNumber, row *views.NumberRow) error {
	row.DailyCap = strconv.Itoa(n.DailyCap)
	if n.DailyCap == 0 {
		row.SentToday = "no cap"
		return nil
	}
	sent, err := h.store.SentOnDay(u.ws.ID, n.ID, h.now())
	row.SentToday = strconv.Itoa(sent) + " of " + strconv.Itoa(n.DailyCap) + " today"
	return err
}

// setNumberDailyCap is POST /settings/numbers/{number}/daily-cap: 0 or empty removes the cap;
// anything but a whole number from 0 re-renders the page with the error beside the field.
func (h *Handler) setNumberDailyCap(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	if !h.readUIForm(w, r, u) {
		return
	}
	id := r.PathValue("number")
	typed := strings.TrimSpace(r.PostForm.Get("dailyCap"))
	var err error
	if typed == "" {
		_, err = h.store.SetNumberDailyCap(u.ws.ID, id, 0)
	} else if n, convErr := strconv.Atoi(typed); convErr != nil {
		err = store.ValidationError{{Field: "dailyCap", Message: "must be a whole number of texts a day (0 = no cap)"}}
	} else {
		_, err = h.store.SetNumberDailyCap(u.ws.ID, id, n)
	}
	if errors.Is(err, store.ErrNotFound) {
		h.notFound(w, r, u, "such number")
		return
	}
	errs := fieldErrors(err, nil)
	h.numbersPage(r, u).answer(w, r, u, errs, "/settings/numbers?done=daily-cap", func(v *views.NumbersView) {
		msg := errs["dailyCap"]
		if msg == "" {
			msg = errs["form"]
		}
		msg = "daily cap " + strings.ToLower(msg[:1]) + msg[1:]
		for i := range v.Rows {
			if v.Rows[i].ID == id {
				v.Rows[i].DailyCapError, v.Rows[i].DailyCap = capitalize(msg), typed
			}
		}
		v.Error = "The daily cap was not changed: " + msg
	})
}
