package web

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"switchboard/store"
	"switchboard/views"
)

// reportFilter is /reports' query string read: the range resolved to days, and the filters.
type reportFilter struct {
	rng                  string // today, 7d, 30d, 90d or custom
	from, to             string // as shown in the form (typed, for custom dates that do not parse)
	number, team, member string
	q                    store.ReportQuery
}

// presetDays are the ranges that end today, by their length.
var presetDays = map[string]store.Date{"today": 1, "7d": 7, "30d": 30, "90d": 90}

// readReportFilter reads range, from, to, number, team and member; the error is the sentence
// to show when they do not make a range. Without a range, dates given make a custom one and
// none the last 7 days.
func (h *Handler) readReportFilter(r *http.Request, u *ui) (reportFilter, string) {
	v := r.URL.Query()
	f := reportFilter{rng: v.Get("range"), from: strings.TrimSpace(v.Get("from")), to: strings.TrimSpace(v.Get("to")),
		number: v.Get("number"), team: v.Get("team"), member: v.Get("member")}
	if f.rng == "" {
		f.rng = "7d"
		if f.from != "" || f.to != "" {
			f.rng = "custom"
		}
	}
	f.q = store.ReportQuery{NumberID: f.number, TeamID: f.team, MemberID: f.member, ViewerID: u.user.ID, Admin: u.isAdmin()}
	if n, ok := presetDays[f.rng]; ok {
		today := store.DateOf(h.now(), u.ws.Location())
		f.q.From, f.q.To = today-n+1, today
		f.from, f.to = f.q.From.String(), f.q.To.String()
		return f, ""
	}
	if f.rng != "custom" {
		return f, "Choose a range: today, the last 7, 30 or 90 days, or custom dates."
	}
	from, okFrom := store.ParseDate(f.from)
	to, okTo := store.ParseDate(f.to)
	switch {
	case !okFrom && !okTo:
		return f, "From and To must be dates such as 2026-03-01."
	case !okFrom:
		return f, "From must be a date such as 2026-03-01."
	case !okTo:
		return f, "To must be a date such as 2026-03-31."
	case to < from:
		return f, "To must be on or after From."
	case int(to-from)+1 > store.MaxReportDays:
		return f, "A report covers at most 400 days: choose a shorter range."
	}
	f.q.From, f.q.To = from, to
	return f, ""
}

// query is the filter as a query string with the range's days fixed (the CSV links: the same
// figures whenever they are followed).
func (f *reportFilter) query() string {
	v := url.Values{"range": {"custom"}, "from": {f.q.From.String()}, "to": {f.q.To.String()}}
	for k, s := range map[string]string{"number": f.number, "team": f.team, "member": f.member} {
		if s != "" {
			v.Set(k, s)
		}
	}
	return v.Encode()
}

// reportRefusal is what to tell a user whose filter the store refused, and the status.
func reportRefusal(err error) (string, int, bool) {
	if errors.Is(err, store.ErrForbidden) {
		if err.Error() == store.NumberNotAllowed {
			return "You are not allowed to use this number: it is limited to teams you are not in.", http.StatusForbidden, true
		}
		return "Only admins see other members' and teams' figures.", http.StatusForbidden, true
	}
	var verr store.ValidationError
	if !errors.As(err, &verr) {
		return "", 0, false
	}
	words := map[string]string{"numberId": "That number is not one of this workspace's.",
		"memberId": "That person is not a member of this workspace.", "teamId": "That team does not exist."}
	var msgs []string
	for _, fe := range verr {
		if w, ok := words[fe.Field]; ok {
			msgs = append(msgs, w)
		} else {
			msgs = append(msgs, fe.Field+" "+fe.Message+".")
		}
	}
	return strings.Join(msgs, " "), http.StatusBadRequest, true
}

// reportTeams is the Team filter's choice: the workspace's teams, for admins (a member sees
// only their own row); none hides the filter.
func (h *Handler) reportTeams(u *ui) ([]views.Option, error) {
	if !u.isAdmin() {
		return nil, nil
	}
	rt, err := h.store.RoutingOf(u.ws.ID)
	if err != nil {
		return nil, err
	}
	var opts []views.Option
	for _, t := range rt.Teams {
		opts = append(opts, views.Option{Value: t.ID, Label: t.Name})
	}
	return opts, nil
}

// reports is GET /reports: the workspace's figures for a range, compared with the period
// before, in pictures and tables (members who are not admins: the totals and their own row).
func (h *Handler) reports(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "reports"
	f, problem := h.readReportFilter(r, u)
	v := views.ReportsView{Admin: u.isAdmin(), Range: f.rng, From: f.from, To: f.to, Number: f.number, Team: f.team,
		Member: f.member, Query: f.query()}
	names, err := h.reportChoices(u, &v)
	if err == nil {
		v.Teams, err = h.reportTeams(u)
	}
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	status := http.StatusOK
	if problem != "" {
		v.Error, status = problem, http.StatusBadRequest
		h.render(w, r, u, status, "Reports", views.Reports(v))
		return
	}
	rep, err := h.store.Report(u.ws.ID, f.q)
	if err != nil {
		msg, code, ok := reportRefusal(err)
		if !ok {
			h.uiError(w, r, u, err)
			return
		}
		v.Error = msg
		h.render(w, r, u, code, "Reports", views.Reports(v))
		return
	}
	fillReportView(&v, &rep, names, u.ws.Location())
	h.render(w, r, u, status, "Reports", views.Reports(v))
}

// reportChoices fills the Number and Member choices and returns the members' names by user id.
func (h *Handler) reportChoices(u *ui, v *views.ReportsView) (map[string]string, error) {
	numbers, err := h.usableNumbers(u)
	if err != nil {
		return nil, err
	}
	for _, n := range numbers {
		label := u.showPhone(n.Phone)
		if n.Name != "" {
			label += " (" + n.Name + ")"
		}
		v.Numbers = append(v.Numbers, views.Option{Value: n.ID, Label: label})
	}
	var names map[string]string
	v.Members, names, err = h.memberChoices(u)
	return names, err
}

// memberChoices are the workspace's members as choices (by name, else e-mail), in the order
// of the members table, and their names by user id.
func (h *Handler) memberChoices(u *ui) ([]views.Option, map[string]string, error) {
	members, err := h.store.Members(u.ws.ID)
	if err != nil {
		return nil, nil, err
	}
	var opts []views.Option
	names := map[string]string{}
	for _, m := range members {
		user, err := h.store.User(m.UserID)
		if err != nil {
			if errors.Is(err, store.ErrNotFound) {
				continue
			}
			return nil, nil, err
		}
		name := user.Name
		if name == "" {
			name = user.Email
		}
		names[m.UserID] = name
		opts = append(opts, views.Option{Value: m.UserID, Label: name})
	}
	return opts, names, nil
}
