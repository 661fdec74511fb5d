package web

import (
	"net/http"
	"strconv"
	"strings"

	"switchboard/automation"
	"switchboard/store"
	"switchboard/views"
)

// /settings/hours: business hours, holidays, automatic replies, the first-response target and
// each number's own hours and replies (admins).

var hoursNotices = map[string]string{"hours": "Hours saved.", "replies": "Automatic replies saved.",
	"first-response": "First-response target saved.", "number": "Number saved."}

func hoursForm(h automation.Hours) views.HoursForm {
	return views.HoursForm{Week: h.Week.String(), Holidays: strings.Join(h.Holidays, ", ")}
}

func repliesForm(a store.AutoReplies) views.RepliesForm {
	var f views.RepliesForm
	if a.AfterHours != nil {
		f.AfterHours = *a.AfterHours
	}
	if a.Greeting != nil {
		f.Greeting = *a.Greeting
	}
	return f
}

func (h *Handler) hoursView(r *http.Request, u *ui) (views.HoursView, error) {
	v := views.HoursView{Zone: u.ws.TimeZone, State: h.hoursState(u), Notice: hoursNotices[r.URL.Query().Get("done")]}
	if v.Zone == "" {
		v.Zone = "UTC"
	}
	rt, err := h.store.RoutingOf(u.ws.ID)
	if err != nil {
		return v, err
	}
	v.Hours, v.Replies = hoursForm(rt.Hours), repliesForm(rt.AutoReply)
	v.FirstResponse = views.FirstResponseForm{Minutes: strconv.Itoa(rt.FirstResponse), Business: rt.FirstResponseBusinessOnly()}
	numbers, err := h.store.Numbers(u.ws.ID)
	if err != nil {
		return v, err
	}
	for _, n := range numbers {
		nr := rt.Number(n.ID)
		f := views.NumberHoursForm{ID: n.ID, Label: u.showPhone(n.Phone), OwnHours: nr.Hours != nil,
			OwnReplies: nr.AutoReply.AfterHours != nil || nr.AutoReply.Greeting != nil, Summary: "workspace hours"}
		if n.Name != "" {
			f.Label += " (" + n.Name + ")"
		}
		if nr.Hours != nil {
			f.Hours, f.Summary = hoursForm(*nr.Hours), "own hours: "+nr.Hours.Week.String()
			if nr.Hours.Week.AlwaysOpen() {
				f.Summary = "own hours: always open"
			}
		} else {
			f.Hours = v.Hours
		}
		if f.OwnReplies {
			f.Replies, f.Summary = repliesForm(nr.AutoReply), f.Summary+", own replies"
		} else {
			f.Replies = v.Replies
		}
		v.Numbers = append(v.Numbers, f)
	}
	return v, nil
}

func (h *Handler) hoursPage(r *http.Request, u *ui) formPage[views.HoursView] {
	u.section = "settings"
	return pageOf(h, "Business hours", views.Hours, func() (views.HoursView, error) { return h.hoursView(r, u) })
}

// settingsHours is GET /settings/hours.
func (h *Handler) settingsHours(w http.ResponseWriter, r *http.Request, u *ui) {
	h.hoursPage(r, u).show(w, r, u, http.StatusOK, nil)
}

// saveHours is POST /settings/hours: the workspace's week and holidays.
func (h *Handler) saveHours(w http.ResponseWriter, r *http.Request, u *ui) {
	if !h.readUIForm(w, r, u) {
		return
	}
	f := views.HoursForm{Week: r.PostForm.Get("week"), Holidays: r.PostForm.Get("holidays")}
	_, err := h.store.SetHours(u.ws.ID, "", &store.HoursInput{Week: f.Week, Holidays: f.Holidays})
	f.Errors = fieldErrors(err, nil)
	h.hoursPage(r, u).answer(w, r, u, f.Errors, "/settings/hours?done=hours", func(v *views.HoursView) { v.Hours = f })
}

// saveAutoReplies is POST /settings/hours/replies: the workspace's after-hours reply and greeting.
func (h *Handler) saveAutoReplies(w http.ResponseWriter, r *http.Request, u *ui) {
	if !h.readUIForm(w, r, u) {
		return
	}
	f := views.RepliesForm{AfterHours: r.PostForm.Get("afterHours"), Greeting: r.PostForm.Get("greeting")}
	_, err := h.store.SetAutoReplies(u.ws.ID, "", &f.AfterHours, &f.Greeting, false)
	f.Errors = fieldErrors(err, nil)
	h.hoursPage(r, u).answer(w, r, u, f.Errors, "/settings/hours?done=replies", func(v *views.HoursView) { v.Replies = f })
}

// saveFirstResponse is POST /settings/hours/first-response.
func (h *Handler) saveFirstResponse(w http.ResponseWriter, r *http.Request, u *ui) {
	if !h.readUIForm(w, r, u) {
		return
	}
	f := views.FirstResponseForm{Minutes: strings.TrimSpace(r.PostForm.Get("minutes")), Business: r.PostForm.Get("hours") != store.FirstResponseAll}
	minutes, convErr := strconv.Atoi(f.Minutes)
	var err error
	if convErr != nil {
		err = store.ValidationError{{Field: "firstResponse", Message: "must be a whole number of minutes (0 turns the target off)"}}
	} else {
		mode := store.FirstResponseAll
		if f.Business {
			mode = store.FirstResponseBusiness
		}
		_, err = h.store.SetFirstResponse(u.ws.ID, minutes, mode)
	}
	f.Errors = fieldErrors(err, nil)
	h.hoursPage(r, u).answer(w, r, u, f.Errors, "/settings/hours?done=first-response", func(v *views.HoursView) { v.FirstResponse = f })
}

// saveNumberHours is POST /settings/hours/numbers/{number}: a number's own hours and replies, or
// the workspace's again.
func (h *Handler) saveNumberHours(w http.ResponseWriter, r *http.Request, u *ui) {
	if !h.readUIForm(w, r, u) {
		return
	}
	id := r.PathValue("number")
	f := views.NumberHoursForm{ID: id, OwnHours: r.PostForm.Get("ownHours") == "on", OwnReplies: r.PostForm.Get("ownReplies") == "on",
		Hours:   views.HoursForm{Week: r.PostForm.Get("week"), Holidays: r.PostForm.Get("holidays")},
		Replies: views.RepliesForm{AfterHours: r.PostForm.Get("afterHours"), Greeting: r.PostForm.Get("greeting")}}
	var in *store.HoursInput
	if f.OwnHours {
		in = &store.HoursInput{Week: f.Hours.Week, Holidays: f.Hours.Holidays}
	}
	// Hours and replies are checked before either is saved, so a refused form changes nothing.
	var err error
	if in != nil {
		_, err = store.ParseHours(*in)
	}
	if err == nil {
		if f.OwnReplies {
			_, err = h.store.SetAutoReplies(u.ws.ID, id, &f.Replies.AfterHours, &f.Replies.Greeting, false)
		} else {
			_, err = h.store.SetAutoReplies(u.ws.ID, id, nil, nil, true)
		}
	}
	if err == nil {
		_, err = h.store.SetHours(u.ws.ID, id, in)
	}
	errs := fieldErrors(err, nil)
	h.hoursPage(r, u).answer(w, r, u, errs, "/settings/hours?done=number", func(v *views.HoursView) {
		for i := range v.Numbers {
			if v.Numbers[i].ID == id {
				f.Label, f.Summary, f.Open = v.Numbers[i].Label, v.Numbers[i].Summary, true
				f.Hours.Errors, f.Replies.Errors, f.Errors = errs, errs, errs
				v.Numbers[i] = f
			}
		}
	})
}
