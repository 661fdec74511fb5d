package web

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"switchboard/store"
	"switchboard/views"
)

// settingsHome is GET /settings: an admin's first settings page, else the user's tokens.
func (h *Handler) settingsHome(w http.ResponseWriter, r *http.Request, u *ui) {
	if u.ws.ID != "" && u.isAdmin() {
		http.Redirect(w, r, "/settings/workspace", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, "/settings/tokens", http.StatusSeeOther)
}

// dateTimeLayout is the one way the pages write a date and time, in the workspace's time zone:
// "Nov 29 2026, 14:05". Lists shorten it by recency (formatWhen): "14:05" today, "Nov 29, 14:05"
// this year.
const dateTimeLayout = "Jan 2 2006, 15:04"

// fmtTime shows a time with its date in the workspace's zone ("" for none).
func fmtTime(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return ""
	}
	return t.In(loc).Format(dateTimeLayout)
}

// ---- /settings/workspace ----

func workspaceForm(ws store.Workspace) views.WorkspaceForm {
	q := ws.QuietHours
	if q == "" {
		q = "off"
	}
	return views.WorkspaceForm{Name: ws.Name, StopReply: ws.KeywordReply(store.KeywordStop), StartReply: ws.KeywordReply(store.KeywordStart),
		HelpReply: ws.KeywordReply(store.KeywordHelp), VoiceGreeting: ws.Greeting(), TimeZone: ws.TimeZone, Country: ws.Region(), QuietHours: q,
		StateHours: ws.StateHours, RetentionDays: strconv.Itoa(ws.RetentionDays), Assist: ws.Assist}
}

// assistOf shows the installation's model on the form, when it has one.
func (h *Handler) assistOf(f *views.WorkspaceForm) {
	if a := h.cfg.Assist; a != nil {
		f.AssistHost, f.AssistModel = a.Host(), a.Model()
	}
}

func (h *Handler) settingsWorkspace(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	f := workspaceForm(u.ws)
	h.assistOf(&f)
	if r.URL.Query().Get("done") == "saved" {
		f.Notice = "Settings saved."
	}
	h.render(w, r, u, http.StatusOK, "Workspace settings", views.WorkspaceSettings(f))
}

func (h *Handler) saveWorkspace(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	if !h.readUIForm(w, r, u) {
		return
	}
	p := r.PostForm
	f := views.WorkspaceForm{Name: p.Get("name"), StopReply: p.Get("stopReply"), StartReply: p.Get("startReply"),
		HelpReply: p.Get("helpReply"), VoiceGreeting: p.Get("voiceGreeting"), TimeZone: strings.TrimSpace(p.Get("timeZone")), Country: strings.ToUpper(strings.TrimSpace(p.Get("country"))),
		QuietHours: p.Get("quietHours"), StateHours: p.Get("stateHours") == "on", RetentionDays: strings.TrimSpace(p.Get("retentionDays")),
		Assist: p.Get("assist") == "on"}
	h.assistOf(&f)
	shown := workspaceForm(u.ws)
	var retention *int
	bad := map[string]string{}
	if f.RetentionDays != "" {
		if d, err := strconv.Atoi(f.RetentionDays); err != nil {
			bad["retentionDays"] = "Must be a whole number of days (0 keeps messages)"
		} else {
			retention = &d
		}
	}
	// A default left as shown stays the default (it names the workspace, and follows a rename).
	keep := func(typed, was string, set *string) *string {
		if set == nil && strings.TrimSpace(typed) == was {
			return nil
		}
		return &typed
	}
	in := store.WorkspaceSettings{Name: &f.Name, StopReply: keep(f.StopReply, shown.StopReply, u.ws.StopReply),
		StartReply: keep(f.StartReply, shown.StartReply, u.ws.StartReply), HelpReply: keep(f.HelpReply, shown.HelpReply, u.ws.HelpReply),
		VoiceGreeting: keep(f.VoiceGreeting, shown.VoiceGreeting, u.ws.VoiceGreeting), TimeZone: &f.TimeZone, Country: &f.Country, QuietHours: &f.QuietHours,
		RetentionDays: retention}
	if !p.Has("country") { // a form without the field keeps the country
		in.Country = nil
	}
	if p.Has("stateHoursShown") { // an unchecked box sends nothing: only a form that shows it turns it off
		in.StateHours = &f.StateHours
	}
	if p.Has("assistShown") && h.cfg.Assist != nil { // shown only when the server has a model
		in.Assist = &f.Assist
	}
	f.Errors = bad
	if len(bad) == 0 {
		_, err := h.store.UpdateWorkspace(u.ws.ID, in)
		f.Errors = fieldErrors(err, nil)
	} else if errs := in.Check(); errs != nil {
		// Every field's problem at once, not the next one after this is fixed.
		for k, msg := range fieldErrors(errs, nil) {
			if _, ok := f.Errors[k]; !ok {
				f.Errors[k] = msg
			}
		}
	}
	if len(f.Errors) > 0 {
		h.render(w, r, u, http.StatusUnprocessableEntity, "Workspace settings", views.WorkspaceSettings(f))
		return
	}
	http.Redirect(w, r, "/settings/workspace?done=saved", http.StatusSeeOther)
}

// ---- /settings/numbers ----

var numberNotices = map[string]string{"number": "Number added.", "renamed": "Number renamed.",
	"deactivated": "Number deactivated: it no longer sends or appears as a sender.", "activated": "Number activated.",
	"registration": "Registration saved.",
	"daily-cap":    "Daily cap saved."}

func (h *Handler) numbersView(r *http.Request, u *ui) (views.NumbersView, error) {
	v := views.NumbersView{Twilio: h.carrierUsable(store.ProviderTwilio), Telnyx: h.carrierUsable(store.ProviderTelnyx),
		Notice: numberNotice(r.URL.Query().Get("done"))}
	ns, err := h.store.Numbers(u.ws.ID)
	if err != nil {
		return v, err
	}
	for _, n := range ns {
		rate := "server default"
		switch {
		case n.Rate != nil && *n.Rate == 0:
			rate = "unlimited"
		case n.Rate != nil:
			rate = strconv.FormatFloat(*n.Rate, 'f', -1, 64) + " texts/s"
		case n.CarrierName() == store.ProviderSandbox:
			rate = "unlimited"
		}
		row := views.NumberRow{ID: n.ID, Phone: u.showPhone(n.Phone), Name: n.Name, Carrier: n.CarrierName(), Rate: rate, Active: n.Active}
		if h.cfg.Accounts != nil {
			row.Receiving, row.ReceivingProblem = receivingOf(&n)
		}
		if err := h.dailyCapOf(u, &n, &row); err != nil {
			return v, err
		}
		v.Rows = append(v.Rows, row)
		v.Registrations = append(v.Registrations, registrationRow(u, &n))
	}
	v.FromCarrier = h.fromCarrier(u)
	return v, nil
}

// numbersPage is /settings/numbers, for the forms that post back to it.
func (h *Handler) numbersPage(r *http.Request, u *ui) formPage[views.NumbersView] {
	return pageOf(h, "Numbers", views.Numbers, func() (views.NumbersView, error) { return h.numbersView(r, u) })
}

func (h *Handler) settingsNumbers(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	h.numbersPage(r, u).show(w, r, u, http.StatusOK, nil)
}

// addNumberOnSettings is POST /settings/numbers from the numbers page (page=settings): the
// carrier is chosen there, and errors re-render that page.
func (h *Handler) addNumberOnSettings(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	f := views.AddNumberForm{Phone: strings.TrimSpace(r.PostForm.Get("phone")), Name: strings.TrimSpace(r.PostForm.Get("name"))}
	carrierName := r.PostForm.Get("carrier")
	var err error
	if carrierName == store.ProviderTwilio && !h.carrierUsable(carrierName) {
		err = store.ValidationError{{Field: "carrier", Message: "twilio needs the server's Twilio credentials; choose sandbox"}}
	} else if carrierName == store.ProviderTelnyx && !h.carrierUsable(carrierName) {
		err = store.ValidationError{{Field: "carrier", Message: "telnyx needs the server's Telnyx keys; choose sandbox"}}
	} else {
		var e164 string
		if e164, err = u.readPhone("phone", f.Phone); err == nil {
			_, err = h.store.CreateNumber(u.ws.ID, store.NumberInput{Phone: e164, Name: f.Name, Carrier: carrierName})
		}
	}
	f.Errors = fieldErrors(err, nil)
	h.numbersPage(r, u).answer(w, r, u, f.Errors, "/settings/numbers?done=number", func(v *views.NumbersView) {
		v.Add, v.Carrier = f, carrierName
	})
}

func (h *Handler) renameNumber(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	if !h.readUIForm(w, r, u) {
		return
	}
	id := r.PathValue("number")
	name := strings.TrimSpace(r.PostForm.Get("name"))
	_, err := h.store.UpdateNumber(u.ws.ID, id, &name, nil, nil)
	if errors.Is(err, store.ErrNotFound) {
		h.notFound(w, r, u, "such number")
		return
	}
	errs := fieldErrors(err, nil)
	h.numbersPage(r, u).answer(w, r, u, errs, "/settings/numbers?done=renamed", func(v *views.NumbersView) {
		for i := range v.Rows {
			if v.Rows[i].ID == id {
				v.Rows[i].RenameError, v.Rows[i].NameTyped = firstError(errs), name
			}
		}
		v.Error = "The number was not renamed: " + firstError(errs)
	})
}

func (h *Handler) setNumberActive(w http.ResponseWriter, r *http.Request, u *ui) {
	if !h.readUIForm(w, r, u) {
		return
	}
	active := r.PostForm.Get("active") == "true"
	if _, err := h.store.UpdateNumber(u.ws.ID, r.PathValue("number"), nil, &active, nil); err != nil {
		u.section = "settings"
		if errors.Is(err, store.ErrNotFound) {
			h.notFound(w, r, u, "such number")
			return
		}
		h.uiError(w, r, u, err)
		return
	}
	done := "deactivated"
	if active {
		done = "activated"
	}
	http.Redirect(w, r, "/settings/numbers?done="+done, http.StatusSeeOther)
}

// ---- /settings/tokens ----

func (h *Handler) tokensView(u *ui) (views.TokensView, error) {
	v := views.TokensView{Admin: u.ws.ID != "" && u.isAdmin()}
	ts, err := h.store.UserTokens(u.user.ID)
	for _, t := range ts {
		v.Rows = append(v.Rows, views.TokenRow{ID: t.ID, Name: t.Name, Created: fmtTime(t.CreatedAt, u.ws.Location())})
	}
	return v, err
}

// tokensPage is /settings/tokens, for the forms that post back to it.
func (h *Handler) tokensPage(u *ui) formPage[views.TokensView] {
	return pageOf(h, "API tokens", views.Tokens, func() (views.TokensView, error) { return h.tokensView(u) })
}

func (h *Handler) settingsTokens(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	h.tokensPage(u).show(w, r, u, http.StatusOK, func(v *views.TokensView) {
		if r.URL.Query().Get("done") == "revoked" {
			v.Notice = "Token revoked."
		}
	})
}

// createToken answers with the page itself (200), not a redirect: the token is shown this once
// and must not travel in a URL or be kept in the session.
func (h *Handler) createToken(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	if !h.readUIForm(w, r, u) {
		return
	}
	name := strings.TrimSpace(r.PostForm.Get("name"))
	if len([]rune(name)) > 100 {
		h.tokensPage(u).show(w, r, u, http.StatusUnprocessableEntity, func(v *views.TokensView) {
			v.Name, v.Errors = name, map[string]string{"name": "At most 100 characters"}
		})
		return
	}
	_, plain, err := h.store.CreateToken(u.user.ID, name)
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	h.tokensPage(u).show(w, r, u, http.StatusOK, func(v *views.TokensView) { v.Created = plain })
}

func (h *Handler) revokeToken(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	if err := h.store.RevokeUserToken(u.user.ID, r.PathValue("token")); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			h.notFound(w, r, u, "such token")
			return
		}
		h.uiError(w, r, u, err)
		return
	}
	http.Redirect(w, r, "/settings/tokens?done=revoked", http.StatusSeeOther)
}

// ---- /settings/properties ----

func (h *Handler) propertiesView(u *ui) (views.PropertiesView, error) {
	v := views.PropertiesView{Types: store.PropertyTypes, Type: store.PropertyText}
	ps, err := h.store.Properties(u.ws.ID)
	for _, p := range ps {
		v.Rows = append(v.Rows, views.PropertyRow{Name: p.Name, Type: p.Type})
	}
	return v, err
}

// propertiesPage is /settings/properties, for the forms that post back to it.
func (h *Handler) propertiesPage(u *ui) formPage[views.PropertiesView] {
	return pageOf(h, "Contact properties", views.Properties, func() (views.PropertiesView, error) { return h.propertiesView(u) })
}

func (h *Handler) settingsProperties(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	h.propertiesPage(u).show(w, r, u, http.StatusOK, func(v *views.PropertiesView) {
		if r.URL.Query().Get("done") == "added" {
			v.Notice = "Property added."
		}
	})
}

func (h *Handler) addProperty(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	if !h.readUIForm(w, r, u) {
		return
	}
	name, typ := strings.TrimSpace(r.PostForm.Get("name")), r.PostForm.Get("type")
	_, err := h.store.AddProperty(u.ws.ID, name, typ)
	errs := fieldErrors(err, nil)
	if errors.Is(err, store.ErrConflict) {
		errs = map[string]string{"name": errs["form"]}
	}
	h.propertiesPage(u).answer(w, r, u, errs, "/settings/properties?done=added", func(v *views.PropertiesView) {
		v.Name, v.Type, v.Errors = name, typ, errs
	})
}
