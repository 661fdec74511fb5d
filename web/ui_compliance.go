package web

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"switchboard/store"
	"switchboard/views"
)

// complianceView fills the contact page's texting and consent cards.
func (h *Handler) complianceView(u *ui, phone string) (views.ContactCompliance, error) {
	var v views.ContactCompliance
	loc := u.ws.Location()
	o, opted, err := h.store.OptOutOf(u.ws.ID, phone)
	if err != nil {
		return v, err
	}
	if opted {
		v.OptOutReason, v.OptedOutAt = o.Reason, fmtTime(o.CreatedAt, loc)
		v.ContactOnly = !store.LiftableByAdmin(o.Reason)
		v.CanLift = !v.ContactOnly && u.isAdmin()
	}
	if f, ok, err := h.store.NumberFlagOf(u.ws.ID, phone); err != nil {
		return v, err
	} else if ok {
		v.Landline = "A carrier reported this number is a landline or not a mobile number (error " + strconv.Itoa(f.Code) + ")."
	}
	names := map[string]string{}
	who := func(id string) string {
		if id == "" {
			return ""
		}
		if n, ok := names[id]; ok {
			return n
		}
		n := id
		if usr, err := h.store.User(id); err == nil {
			n = usr.Name
			if n == "" {
				n = usr.Email
			}
		}
		names[id] = n
		return n
	}
	consents, err := h.store.Consents(u.ws.ID, phone)
	if err != nil {
		return v, err
	}
	for _, c := range consents {
		v.Consents = append(v.Consents, views.ConsentRow{Status: c.Status, At: fmtTime(c.At, loc),
			Source: c.Source, Method: c.Method, Evidence: c.Evidence, RecordedBy: who(c.RecordedBy)})
	}
	lifts, err := h.store.OptOutLifts(u.ws.ID, phone)
	if err != nil {
		return v, err
	}
	for _, l := range lifts {
		v.Lifts = append(v.Lifts, views.LiftRow{At: fmtTime(l.At, loc), Who: who(l.UserID),
			Reason: l.Reason, OptOutReason: l.OptOutReason})
	}
	v.Consent = views.ConsentForm{Status: store.ConsentGranted, Source: store.ConsentForm, At: h.now().In(loc).Format("2006-01-02T15:04")}
	return v, nil
}

// contactOptOut is POST /contacts/{contact}/optout. optedOut=true opts the number out (reason
// admin) once "I confirm" is ticked; false lifts an admin or api opt-out for a workspace admin,
// with the confirmation and a reason, both recorded. A keyword or carrier opt-out is lifted
// only by the contact (START), so the page offers no lift for it and this refuses one.
func (h *Handler) contactOptOut(w http.ResponseWriter, r *http.Request, u *ui) {
	c, ok := h.contactOf(w, r, u)
	if !ok || !h.readUIForm(w, r, u) {
		return
	}
	var err error
	what := "optout"
	confirmed := r.PostForm.Get("confirm") == "yes"
	if r.PostForm.Get("optedOut") == "true" {
		if confirmed {
			_, _, err = h.store.CreateOptOut(u.ws.ID, u.user.ID, c.Phone(), store.OptOutAdmin)
		} else {
			err = store.ValidationError{{Field: "confirm", Message: "tick \"I confirm\" to opt this number out"}}
		}
	} else {
		what = "optin"
		if !u.isAdmin() {
			err = errors.New("only a workspace admin can lift an opt-out")
		} else {
			_, err = h.store.LiftOptOut(u.ws.ID, u.user.ID, c.Phone(), confirmed, r.PostForm.Get("reason"))
		}
	}
	if err != nil {
		msg := err.Error()
		if errs := fieldErrors(err, nil); errs != nil {
			msg = firstError(errs)
		}
		var serr *store.Error
		if errors.As(err, &serr) {
			msg = serr.Msg
		}
		status := http.StatusUnprocessableEntity
		if errors.Is(err, store.ErrForbidden) || !u.isAdmin() && what == "optin" {
			status = http.StatusForbidden
		}
		h.renderContact(w, r, u, &c, status, func(v *views.ContactView) {
			v.Error = "Not changed: " + msg
			v.Compliance.LiftReason = r.PostForm.Get("reason")
		})
		return
	}
	http.Redirect(w, r, "/contacts/"+c.ID+"?done="+what, http.StatusSeeOther)
}

// contactConsent is POST /contacts/{contact}/consent: a consent entry recorded by the user.
// "at" is RFC 3339, or the form's YYYY-MM-DDTHH:MM read in the workspace's time zone.
func (h *Handler) contactConsent(w http.ResponseWriter, r *http.Request, u *ui) {
	c, ok := h.contactOf(w, r, u)
	if !ok || !h.readUIForm(w, r, u) {
		return
	}
	f := views.ConsentForm{Status: r.PostForm.Get("status"), At: strings.TrimSpace(r.PostForm.Get("at")),
		Source: r.PostForm.Get("source"), Method: r.PostForm.Get("method"), Evidence: r.PostForm.Get("evidence")}
	at := f.At
	if t, err := time.ParseInLocation("2006-01-02T15:04", at, u.ws.Location()); err == nil {
		at = t.Format(time.RFC3339)
	}
	_, err := h.store.AddConsent(u.ws.ID, u.user.ID, c.Phone(), store.ConsentInput{Status: f.Status, At: at,
		Source: f.Source, Method: f.Method, Evidence: f.Evidence})
	if f.Errors = fieldErrors(err, nil); f.Errors != nil {
		h.renderContact(w, r, u, &c, http.StatusUnprocessableEntity, func(v *views.ContactView) {
			v.Compliance.Consent = f
			v.Error = "Not recorded: " + firstError(f.Errors)
		})
		return
	}
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	http.Redirect(w, r, "/contacts/"+c.ID+"?done=consent", http.StatusSeeOther)
}

// threadOptOut is POST /inbox/{conversation}/optout: the possible opt-out banner's one click.
// The member read the contact's own words, so it opts out at once (reason admin) and takes the
// "possible opt-out" label off the conversation.
func (h *Handler) threadOptOut(w http.ResponseWriter, r *http.Request, u *ui) {
	c, ok := h.conversationOf(w, r, u)
	if !ok || !h.readUIForm(w, r, u) {
		return
	}
	if c.IsGroup() {
		h.renderThread(w, r, u, c, http.StatusUnprocessableEntity, func(v *views.ThreadView) {
			v.Error = "A group conversation has no single number to opt out."
		})
		return
	}
	if _, _, err := h.store.CreateOptOut(u.ws.ID, u.user.ID, c.Addresses[0], store.OptOutAdmin); err != nil {
		h.uiError(w, r, u, err)
		return
	}
	if slices.Contains(c.Labels, store.LabelPossibleOptOut) {
		labels := slices.DeleteFunc(slices.Clone(c.Labels), func(l string) bool { return l == store.LabelPossibleOptOut })
		if _, err := h.store.UpdateConversation(u.ws.ID, c.ID, store.ConversationUpdate{Labels: &labels}); err != nil {
			h.uiError(w, r, u, err)
			return
		}
	}
	done(w, r, c, "optout")
}

// failureRows explains a broadcast's failed copies by carrier code, most frequent first, and
// the recipients skipped as landlines.
func failureRows(b *store.Broadcast) []views.FailureRow {
	var rows []views.FailureRow
	if b.TotalLandline > 0 {
		rows = append(rows, views.FailureRow{Count: b.TotalLandline, Code: "landline",
			What: "Skipped: a carrier reported these numbers are landlines or not mobile numbers.",
			Do:   "Call these contacts, or ask them for a mobile number."})
	}
	codes := make([]int, 0, len(b.FailedByCode))
	for c := range b.FailedByCode {
		codes = append(codes, c)
	}
	slices.SortFunc(codes, func(x, y int) int { return b.FailedByCode[y] - b.FailedByCode[x] })
	for _, c := range codes {
		row := views.FailureRow{Count: b.FailedByCode[c], Code: strconv.Itoa(c)}
		if e, ok := store.ExplainCarrierError("x " + row.Code); ok {
			row.What, row.Do = e.What, e.Do
		} else if c == 0 {
			row.Code, row.What = "other", "The carrier refused these without a code."
		} else {
			row.What = "The carrier refused these with error " + row.Code + "."
		}
		rows = append(rows, row)
	}
	return rows
}
