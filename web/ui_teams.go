package web

import (
	"net/http"
	"strconv"
	"strings"

	"switchboard/store"
	"switchboard/views"
)

// /settings/teams: teams, who may use each number and who takes its new conversations, and
// the members' availability (admins).

var teamNotices = map[string]string{"added": "Team added.", "saved": "Team saved.", "deleted": "Team deleted.",
	"number": "Number saved."}

func (h *Handler) teamsView(r *http.Request, u *ui) (views.TeamsView, error) {
	v := views.TeamsView{Notice: teamNotices[r.URL.Query().Get("done")], New: views.TeamForm{Assign: store.AssignOff,
		Capacity: strconv.Itoa(store.DefaultCapacity)}}
	rt, err := h.store.RoutingOf(u.ws.ID)
	if err != nil {
		return v, err
	}
	members, err := h.store.Members(u.ws.ID)
	if err != nil {
		return v, err
	}
	name := map[string]string{}
	for _, m := range members {
		usr, err := h.store.User(m.UserID)
		if err != nil {
			continue
		}
		n := usr.Name
		if n == "" {
			n = usr.Email
		}
		name[m.UserID] = n
		v.Members = append(v.Members, views.Option{Value: m.UserID, Label: n})
		state, _, err := h.store.Availability(m.UserID)
		if err != nil {
			return v, err
		}
		open, err := h.store.OpenAssigned(u.ws.ID, m.UserID)
		if err != nil {
			return v, err
		}
		v.People = append(v.People, views.MemberState{Name: n, Availability: state, Open: open})
	}
	teamName := map[string]string{}
	for _, t := range rt.Teams {
		teamName[t.ID] = t.Name
		var who []string
		for _, id := range t.Members {
			if n := name[id]; n != "" {
				who = append(who, n)
			}
		}
		summary := joinAnd(who)
		if summary == "" {
			summary = "no members"
		}
		summary += " · auto-assignment " + t.Assign
		v.Teams = append(v.Teams, views.TeamForm{ID: t.ID, Name: t.Name, Members: t.Members, Assign: t.Assign,
			Capacity: strconv.Itoa(t.Capacity), Summary: summary})
	}
	numbers, err := h.store.Numbers(u.ws.ID)
	if err != nil {
		return v, err
	}
	for _, n := range numbers {
		nr := rt.Number(n.ID)
		f := views.NumberAccessForm{ID: n.ID, Label: u.showPhone(n.Phone), Teams: nr.Teams, DefaultTeam: nr.DefaultTeam,
			DefaultAssignee: nr.DefaultAssignee}
		if n.Name != "" {
			f.Label += " (" + n.Name + ")"
		}
		f.Summary = "every member"
		if len(nr.Teams) > 0 {
			var ts []string
			for _, t := range nr.Teams {
				ts = append(ts, teamName[t])
			}
			f.Summary = "only " + joinAnd(ts)
		}
		if t := teamName[nr.DefaultTeam]; t != "" {
			f.Summary += " · new conversations to " + t
		}
		if a := name[nr.DefaultAssignee]; a != "" {
			f.Summary += " · default assignee " + a
		}
		v.Numbers = append(v.Numbers, f)
	}
	return v, nil
}

func (h *Handler) teamsPage(r *http.Request, u *ui) formPage[views.TeamsView] {
	u.section = "settings"
	return pageOf(h, "Teams", views.Teams, func() (views.TeamsView, error) { return h.teamsView(r, u) })
}

// settingsTeams is GET /settings/teams.
func (h *Handler) settingsTeams(w http.ResponseWriter, r *http.Request, u *ui) {
	h.teamsPage(r, u).show(w, r, u, http.StatusOK, nil)
}

// readTeam reads a team form.
func readTeam(r *http.Request) (views.TeamForm, store.TeamInput, error) {
	f := views.TeamForm{Name: r.PostForm.Get("name"), Members: r.PostForm["members"], Assign: r.PostForm.Get("assign"),
		Capacity: strings.TrimSpace(r.PostForm.Get("capacity"))}
	in := store.TeamInput{Name: f.Name, Members: f.Members, Assign: f.Assign}
	if f.Capacity != "" {
		n, err := strconv.Atoi(f.Capacity)
		if err != nil {
			return f, in, store.ValidationError{{Field: "capacity", Message: "must be a whole number of open conversations"}}
		}
		in.Capacity = n
	}
	return f, in, nil
}

// createTeam is POST /settings/teams.
func (h *Handler) createTeam(w http.ResponseWriter, r *http.Request, u *ui) {
	if !h.readUIForm(w, r, u) {
		return
	}
	f, in, err := readTeam(r)
	if err == nil {
		_, err = h.store.CreateTeam(u.ws.ID, in)
	}
	f.Errors = fieldErrors(err, nil)
	h.teamsPage(r, u).answer(w, r, u, f.Errors, "/settings/teams?done=added", func(v *views.TeamsView) {
		v.New, v.Error = f, f.Errors["form"]
	})
}

// saveTeam is POST /settings/teams/{team}.
func (h *Handler) saveTeam(w http.ResponseWriter, r *http.Request, u *ui) {
	if !h.readUIForm(w, r, u) {
		return
	}
	id := r.PathValue("team")
	f, in, err := readTeam(r)
	if err == nil {
		_, err = h.store.UpdateTeam(u.ws.ID, id, in)
	}
	f.Errors = fieldErrors(err, nil)
	h.teamsPage(r, u).answer(w, r, u, f.Errors, "/settings/teams?done=saved", func(v *views.TeamsView) {
		for i := range v.Teams {
			if v.Teams[i].ID == id {
				f.ID, f.Summary, f.Open = id, v.Teams[i].Summary, true
				v.Teams[i] = f
			}
		}
		v.Error = f.Errors["form"]
	})
}

// deleteTeam is POST /settings/teams/delete/{team}.
func (h *Handler) deleteTeam(w http.ResponseWriter, r *http.Request, u *ui) {
	errs := fieldErrors(h.store.DeleteTeam(u.ws.ID, r.PathValue("team")), nil)
	h.teamsPage(r, u).answer(w, r, u, errs, "/settings/teams?done=deleted", func(v *views.TeamsView) { v.Error = errs["form"] })
}

// saveNumberAccess is POST /settings/teams/numbers/{number}: the teams a number is limited to,
// its default team and default assignee.
func (h *Handler) saveNumberAccess(w http.ResponseWriter, r *http.Request, u *ui) {
	if !h.readUIForm(w, r, u) {
		return
	}
	id := r.PathValue("number")
	f := views.NumberAccessForm{ID: id, Teams: r.PostForm["teams"], DefaultTeam: r.PostForm.Get("defaultTeam"),
		DefaultAssignee: r.PostForm.Get("defaultAssignee")}
	teams := f.Teams
	_, err := h.store.SetNumberAccess(u.ws.ID, id, store.NumberAccess{Teams: &teams, DefaultTeam: &f.DefaultTeam,
		DefaultAssignee: &f.DefaultAssignee})
	f.Errors = fieldErrors(err, nil)
	h.teamsPage(r, u).answer(w, r, u, f.Errors, "/settings/teams?done=number", func(v *views.TeamsView) {
		for i := range v.Numbers {
			if v.Numbers[i].ID == id {
				f.Label, f.Summary, f.Open = v.Numbers[i].Label, v.Numbers[i].Summary, true
				v.Numbers[i] = f
			}
		}
	})
}
