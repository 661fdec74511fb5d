package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/mail"
	"slices"
	"strconv"
	"strings"
	"switchboard/internal/phone"
	"time"
	"unicode/utf8"

	"switchboard/store"
	"switchboard/views"
)

var contactNotices = map[string]string{
	"created":  "Contact created.",
	"saved":    "Contact saved.",
	"grouped":  "Added to the group.",
	"ungroup":  "Removed from the group.",
	"optout":   "Opted out: no more texts go to this number.",
	"optin":    "Opt-out lifted; the reason is recorded.",
	"consent":  "Consent recorded.",
	"added":    "Member added.",
	"removed":  "Member removed.",
	"renamed":  "Group renamed.",
	"deleted":  "Group deleted.",
	"group":    "Group created.",
	"cancel":   "Broadcast cancelled.",
	"resume":   "Broadcast resumed.",
	"sent":     "Broadcast started.",
	"schedule": "Broadcast scheduled.",
}

// contactName is a contact's full name, "" when unnamed.
func contactName(c *store.Contact) string {
	return strings.TrimSpace(c.FirstName + " " + c.LastName)
}

// propFields are the workspace's custom properties with c's values as text (c nil: empty).
func (h *Handler) propFields(u *ui, c *store.Contact) ([]views.PropField, error) {
	props, err := h.store.Properties(u.ws.ID)
	if err != nil {
		return nil, err
	}
	out := make([]views.PropField, 0, len(props))
	for _, p := range props {
		f := views.PropField{Name: p.Name, Type: p.Type}
		if c != nil {
			f.Value = store.ContactTagValue(c, p.Name)
		}
		out = append(out, f)
	}
	return out, nil
}

// contactNew is GET /contacts/new.
func (h *Handler) contactNew(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "contacts"
	props, err := h.propFields(u, nil)
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	h.render(w, r, u, http.StatusOK, "New contact", views.ContactNew(views.ContactForm{Props: props}))
}

// readContactForm reads the contact form into f and the store's input; the errors are by field.
// Editing, an emptied property is removed; creating, it is left out.
func readContactForm(r *http.Request, f *views.ContactForm, editing bool, country string) (store.ContactInput, map[string]string) {
	get := func(k string) string { return strings.TrimSpace(r.PostForm.Get(k)) }
	f.FirstName, f.LastName, f.Company, f.Email = get("firstName"), get("lastName"), get("company"), get("email")
	f.TimeZone = get("timeZone")
	errs := map[string]string{}
	e164 := f.Phone // editing: the contact's own number, which the form does not change
	if !editing {
		f.Phone = get("phone")
		var err error
		if e164, err = phone.Parse(f.Phone, country); err != nil {
			errs["phone"] = capitalize(phoneMessage(country))
		}
		if f.FirstName == "" {
			errs["firstName"] = "Write the first name"
		}
	}
	for k, v := range map[string]string{"firstName": f.FirstName, "lastName": f.LastName, "company": f.Company} {
		if utf8.RuneCountInString(v) > maxName {
			errs[k] = fmt.Sprintf("Must be at most %d characters", maxName)
		}
	}
	if f.Email != "" {
		if addr, err := mail.ParseAddress(f.Email); err != nil || addr.Address != f.Email || len(f.Email) > maxEmail {
			errs["email"] = "Must be an email address such as ana@example.com"
		}
	}
	if f.TimeZone != "" && !store.ValidTimeZone(f.TimeZone) {
		errs["timeZone"] = "Must be an IANA time zone such as America/Chicago"
	}
	in := store.ContactInput{Phone: e164, FirstName: &f.FirstName, LastName: &f.LastName, Company: &f.Company,
		Email: &f.Email, TimeZone: &f.TimeZone, Properties: map[string]any{}, Source: store.SourceAdmin}
	for i := range f.Props {
		p := &f.Props[i]
		p.Value = get("prop." + p.Name)
		key := "properties." + p.Name
		if p.Value == "" {
			if editing {
				in.Properties[p.Name] = nil
			}
			continue
		}
		switch p.Type {
		case store.PropertyNumber:
			n, err := strconv.ParseFloat(p.Value, 64)
			if err != nil {
				errs[key] = "Must be a number"
				continue
			}
			in.Properties[p.Name] = n
		case store.PropertyBoolean:
			in.Properties[p.Name] = p.Value == "true"
		default:
			in.Properties[p.Name] = p.Value
		}
		if msg := store.ValidateProperty(p.Type, in.Properties[p.Name]); msg != "" {
			errs[key] = capitalize(msg)
		}
	}
	if len(errs) == 0 {
		errs = nil
	}
	return in, errs
}

// contactCreate is POST /contacts/new.
func (h *Handler) contactCreate(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "contacts"
	if !h.readUIForm(w, r, u) {
		return
	}
	props, err := h.propFields(u, nil)
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	f := views.ContactForm{Props: props}
	in, errs := readContactForm(r, &f, false, u.ws.Region())
	var c store.Contact
	if errs == nil {
		c, err = h.store.CreateContact(u.ws.ID, in)
		if errors.Is(err, store.ErrConflict) {
			if old, err2 := h.store.ContactByPhone(u.ws.ID, in.Phone); err2 == nil {
				err = store.ValidationError{{Field: "phone", Message: "a contact with this number already exists: " + orUnnamed(contactName(&old))}}
			}
		}
		errs = fieldErrors(err, nil)
	}
	if errs != nil {
		f.Errors = errs
		h.render(w, r, u, http.StatusUnprocessableEntity, "New contact", views.ContactNew(f))
		return
	}
	http.Redirect(w, r, "/contacts/"+c.ID+"?done=created", http.StatusSeeOther)
}

func orUnnamed(name string) string {
	if name == "" {
		return "an unnamed contact"
	}
	return name
}

// contactOf finds the page's contact in the current workspace; any other id is the 404 page.
func (h *Handler) contactOf(w http.ResponseWriter, r *http.Request, u *ui) (store.Contact, bool) {
	u.section = "contacts"
	c, err := h.store.Contact(u.ws.ID, r.PathValue("contact"))
	if errors.Is(err, store.ErrNotFound) {
		h.notFound(w, r, u, "such contact")
		return c, false
	}
	if err != nil {
		h.uiError(w, r, u, err)
		return c, false
	}
	return c, true
}

// contactView loads the contact page.
func (h *Handler) contactView(r *http.Request, u *ui, c *store.Contact) (views.ContactView, error) {
	// An unnamed contact (one that texted in) is known by its number.
	v := views.ContactView{Name: contactName(c), Notice: contactNotices[r.URL.Query().Get("done")]}
	if v.Name == "" {
		v.Name = u.showPhone(c.Phone())
	}
	props, err := h.propFields(u, c)
	if err != nil {
		return v, err
	}
	v.Form = views.ContactForm{ID: c.ID, FirstName: c.FirstName, LastName: c.LastName, Company: c.Company, Email: c.Email, TimeZone: c.TimeZone,
		Phone: u.showPhone(c.Phone()), PhoneShown: u.showPhone(c.Phone()), Props: props}
	wsLoc := u.ws.Location()
	v.TimeZone = store.ContactLocation(c.TimeZone, c.Phone(), wsLoc, h.now()).String()
	switch {
	case c.TimeZone != "" && store.ValidTimeZone(c.TimeZone):
		v.TimeZoneFrom = "the contact's own"
	case phoneZone(c.Phone(), h.now()):
		v.TimeZoneFrom = "from the number"
	default:
		v.TimeZoneFrom = "the workspace's"
	}
	if v.OptedOut, err = h.store.IsOptedOut(u.ws.ID, c.Phone()); err != nil {
		return v, err
	}
	if v.Compliance, err = h.complianceView(u, c.Phone()); err != nil {
		return v, err
	}
	numbers, err := h.usableNumbers(u)
	if err != nil {
		return v, err
	}
	for _, n := range numbers {
		if n.Active {
			label := u.showPhone(n.Phone)
			if n.Name != "" {
				label += " (" + n.Name + ")"
			}
			v.Numbers = append(v.Numbers, views.Option{Value: n.Phone, Label: label})
		}
	}
	in, err := h.store.ContactGroups(u.ws.ID, c.ID)
	if err != nil {
		return v, err
	}
	member := map[string]bool{}
	for _, g := range in {
		member[g.ID] = true
		v.Groups = append(v.Groups, views.Option{Value: g.ID, Label: g.Name})
	}
	all, err := h.store.Groups(u.ws.ID)
	if err != nil {
		return v, err
	}
	for _, g := range all {
		if !member[g.ID] {
			v.Others = append(v.Others, views.Option{Value: g.ID, Label: g.Name})
		}
	}
	convs, err := h.store.ContactConversationsFor(u.ws.ID, c.Phone(), u.user.ID)
	if err != nil {
		return v, err
	}
	loc, now := u.ws.Location(), h.now()
	for _, cv := range convs {
		at := cv.CreatedAt
		if cv.LastMessageTime != nil {
			at = *cv.LastMessageTime
		}
		item := views.ContactConversation{ID: cv.ID, From: u.showPhone(cv.From), Status: cv.Status, When: formatWhen(at, now, loc)}
		if cv.IsGroup() {
			item.Group = u.showPhones(slices.DeleteFunc(slices.Clone(cv.Addresses), func(a string) bool { return a == c.Phone() }))
		}
		v.Conversations = append(v.Conversations, item)
	}
	return v, nil
}

func (h *Handler) renderContact(w http.ResponseWriter, r *http.Request, u *ui, c *store.Contact, status int, edit func(*views.ContactView)) {
	v, err := h.contactView(r, u, c)
	if err == nil {
		err = h.contactMessages(r, u, c, &v)
	}
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	if edit != nil {
		edit(&v)
	}
	h.render(w, r, u, status, v.Name, views.Contact(v))
}

// contact is GET /contacts/{contact}.
func (h *Handler) contact(w http.ResponseWriter, r *http.Request, u *ui) {
	c, ok := h.contactOf(w, r, u)
	if !ok {
		return
	}
	h.renderContact(w, r, u, &c, http.StatusOK, nil)
}

// contactSave is POST /contacts/{contact}: the edit form (the phone stays).
func (h *Handler) contactSave(w http.ResponseWriter, r *http.Request, u *ui) {
	c, ok := h.contactOf(w, r, u)
	if !ok || !h.readUIForm(w, r, u) {
		return
	}
	props, err := h.propFields(u, &c)
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	f := views.ContactForm{ID: c.ID, Phone: c.Phone(), PhoneShown: u.showPhone(c.Phone()), Props: props}
	in, errs := readContactForm(r, &f, true, u.ws.Region())
	if errs == nil {
		_, _, err = h.store.UpsertContact(u.ws.ID, in)
		errs = fieldErrors(err, nil)
	}
	if errs != nil {
		f.Errors = errs
		h.renderContact(w, r, u, &c, http.StatusUnprocessableEntity, func(v *views.ContactView) {
			v.Form = f
			v.Error = "Not saved: see the form."
			if e := errs["form"]; e != "" {
				v.Error = e
			}
		})
		return
	}
	http.Redirect(w, r, "/contacts/"+c.ID+"?done=saved", http.StatusSeeOther)
}

// contactGroupAdd is POST /contacts/{contact}/groups (group: a group id of the workspace).
func (h *Handler) contactGroupAdd(w http.ResponseWriter, r *http.Request, u *ui) {
	c, ok := h.contactOf(w, r, u)
	if !ok || !h.readUIForm(w, r, u) {
		return
	}
	err := h.store.AddContactToGroup(u.ws.ID, r.PostForm.Get("group"), c.ID)
	if errors.Is(err, store.ErrNotFound) {
		h.renderContact(w, r, u, &c, http.StatusUnprocessableEntity, func(v *views.ContactView) {
			v.Error = "Not added: there is no such group in this workspace."
		})
		return
	}
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	http.Redirect(w, r, "/contacts/"+c.ID+"?done=grouped", http.StatusSeeOther)
}

// contactGroupRemove is POST /contacts/{contact}/groups/remove (group: a group id).
func (h *Handler) contactGroupRemove(w http.ResponseWriter, r *http.Request, u *ui) {
	c, ok := h.contactOf(w, r, u)
	if !ok || !h.readUIForm(w, r, u) {
		return
	}
	if _, err := h.store.RemoveFromGroup(u.ws.ID, r.PostForm.Get("group"), c.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
		h.uiError(w, r, u, err)
		return
	}
	http.Redirect(w, r, "/contacts/"+c.ID+"?done=ungroup", http.StatusSeeOther)
}

func phoneZone(phone string, at time.Time) bool {
	_, ok := store.PhoneTimeZone(phone, at)
	return ok
}
