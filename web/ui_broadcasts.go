package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"switchboard/internal/phone"
	"switchboard/store"
	"switchboard/views"
)

// broadcastsListed is how many broadcasts /broadcasts shows.
const broadcastsListed = 100

// broadcasts is GET /broadcasts: newest first, with status and the four counters.
func (h *Handler) broadcasts(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "broadcasts"
	list, err := h.store.Broadcasts(u.ws.ID, broadcastsListed)
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	v := views.BroadcastsView{Notice: contactNotices[r.URL.Query().Get("done")]}
	loc, now := u.ws.Location(), h.now()
	for _, b := range list {
		when := "Created " + formatWhen(b.CreatedAt, now, loc)
		if b.Status == store.BroadcastScheduled && b.SendAt != nil {
			when = "Scheduled for " + formatWhen(*b.SendAt, now, loc)
		}
		v.Rows = append(v.Rows, views.BroadcastRow{ID: b.ID, Name: b.Name, Status: b.Status, When: when, Sent: b.TotalSent,
			Delivered: b.TotalDelivered, Failed: b.TotalFailed, OptedOut: b.TotalOptedOut})
	}
	h.render(w, r, u, http.StatusOK, "Broadcasts", views.Broadcasts(v))
}

// composeView loads the compose page's choices and renders f's preview.
func (h *Handler) composeView(u *ui, f views.ComposeForm) (views.ComposeView, error) {
	v := views.ComposeView{Form: f, TimeZone: u.ws.Location().String()}
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
			v.Warnings = addWarning(v.Warnings, &n)
		}
	}
	groups, err := h.store.Groups(u.ws.ID)
	if err != nil {
		return v, err
	}
	for _, g := range groups {
		v.Groups = append(v.Groups, views.Option{Value: g.ID, Label: fmt.Sprintf("%s (%d)", g.Name, g.Size)})
	}
	recent, err := h.store.Inbox(u.ws.ID, store.InboxFilter{Limit: 10, Viewer: u.user.ID})
	if err != nil {
		return v, err
	}
	for _, it := range recent {
		c := it.Conversation
		if c.IsGroup() {
			continue
		}
		label := u.showPhone(c.Addresses[0])
		if it.ContactName != "" {
			label = it.ContactName + " (" + label + ")"
		}
		v.Recent = append(v.Recent, views.Option{Value: c.ID, Label: label})
	}
	// The preview's contact: the first of the contact list, else a made-up one.
	sample := store.Contact{FirstName: "Ada", LastName: "Lovelace", Company: "Analytical Engines", Email: "ada@example.com",
		InboundChannels: []store.InboundChannel{{Address: "+14155550123", IsDefault: true}}}
	if found, err := h.store.SearchContacts(u.ws.ID, ""); err == nil && len(found) > 0 && found[0].FirstName != "" {
		sample = found[0]
	}
	v.SampleName = orUnnamed(contactName(&sample))
	values := map[string]string{}
	for _, k := range []string{"firstName", "lastName", "company", "phone", "email"} {
		values[k] = store.ContactTagValue(&sample, k)
	}
	props, err := h.store.Properties(u.ws.ID)
	if err != nil {
		return v, err
	}
	for _, p := range props {
		if _, builtIn := values[p.Name]; !builtIn {
			values[p.Name] = store.ContactTagValue(&sample, p.Name)
		}
	}
	js, _ := json.Marshal(values)
	v.Sample = string(js)
	v.Preview = f.Text
	if t, err := store.ParseTemplate(f.Text); err == nil {
		v.Preview = t.Render(func(name string) string { return values[name] })
	}
	if f.OptOutInstructions {
		v.Preview = store.WithOptOutInstructions(v.Preview)
	}
	v.Footer = store.OptOutInstruction
	v.Segments, v.Encoding = store.Segments(v.Preview), store.SMSEncoding(v.Preview)
	return v, nil
}

// broadcastNew is GET /broadcasts/new.
func (h *Handler) broadcastNew(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "broadcasts"
	f := views.ComposeForm{OptOutInstructions: true}
	if g := r.URL.Query().Get("group"); g != "" {
		f.GroupIDs = []string{g}
	}
	h.composePage(u, f, nil).show(w, r, u, http.StatusOK, nil)
}

// composePage is /broadcasts/new showing f, for the form that posts back to it; with in, the
// form as read, it shows the longest copy over in's recipients too.
func (h *Handler) composePage(u *ui, f views.ComposeForm, in *store.BroadcastInput) formPage[views.ComposeView] {
	return pageOf(h, "New broadcast", views.Compose, func() (views.ComposeView, error) {
		v, err := h.composeView(u, f)
		if err == nil && in != nil {
			v.Worst, err = h.worstCopy(u, *in)
		}
		return v, err
	})
}

// splitList splits pasted numbers or ids at new lines, commas, semicolons and spaces.
func splitList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return r == ',' || r == ';' || r == '\n' || r == '\r' || r == ' ' || r == '\t'
	})
}

// pastedNumbers reads pasted phone numbers, split at new lines, commas and semicolons; a piece
// that is not one number written with spaces, as in (415) 555-0123, is split at its spaces too
// (numbers pasted in a row). It returns the numbers in E.164, each once, and the pieces that are
// not numbers of region or international, as typed.
func pastedNumbers(s, region string) (numbers, bad []string) {
	seen := map[string]bool{}
	add := func(piece string) bool {
		e164, err := phone.Parse(piece, region)
		if err != nil {
			return false
		}
		if !seen[e164] {
			seen[e164] = true
			numbers = append(numbers, e164)
		}
		return true
	}
	for _, piece := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' || r == '\n' || r == '\r' }) {
		piece = strings.TrimSpace(piece)
		if piece == "" || add(piece) {
			continue
		}
		if !strings.ContainsAny(piece, " \t") {
			bad = append(bad, piece)
			continue
		}
		for _, p := range strings.Fields(piece) {
			if !add(p) {
				bad = append(bad, p)
			}
		}
	}
	return numbers, bad
}

// datetimeLocal is the value of a datetime-local input, with or without seconds.
func parseLocal(s string, loc *time.Location) (time.Time, error) {
	for _, layout := range []string{"2006-01-02T15:04", "2006-01-02T15:04:05"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, errors.New("not a date and time")
}

// readCompose reads the compose form into f and a broadcast input; the errors use the API's
// field names, plus recipientsList for the pasted numbers.
func (h *Handler) readCompose(r *http.Request, u *ui, f *views.ComposeForm) (store.BroadcastInput, map[string]string) {
	get := func(k string) string { return strings.TrimSpace(r.PostForm.Get(k)) }
	f.From, f.Name, f.Text, f.Media = get("from"), get("name"), get("text"), get("mediaUrl")
	f.GroupIDs, f.ExcludeGroupIDs, f.ConversationIDs = r.PostForm["groupIds"], r.PostForm["excludeGroupIds"], r.PostForm["conversationIds"]
	f.MoreIDs, f.Numbers = get("moreConversationIds"), strings.TrimSpace(r.PostForm.Get("recipients"))
	f.Later, f.SendAt = r.PostForm.Get("when") == "later", get("sendAt")
	// A form from a page without the checkbox keeps the default (on); an unticked box sends nothing.
	f.OptOutInstructions = r.PostForm.Get("optOutInstructions") == "on" || r.PostForm.Get("optOutInstructionsShown") == ""
	errs := map[string]string{}
	in := store.BroadcastInput{Name: f.Name, From: f.From, Text: f.Text, Media: []string{}, AuthorID: u.user.ID,
		OptOutInstructions: f.OptOutInstructions,
		GroupIDs:           dedupeIDs(f.GroupIDs), ExcludeGroupIDs: dedupeIDs(f.ExcludeGroupIDs),
		ConversationIDs: dedupeIDs(append(append([]string{}, f.ConversationIDs...), splitList(f.MoreIDs)...))}
	if utf8.RuneCountInString(f.Name) > maxName {
		errs["name"] = fmt.Sprintf("Must be at most %d characters", maxName)
	}
	switch {
	case f.Text == "" && f.Media == "" && !hasFiles(r):
		errs["text"] = "Write the text, attach a file or give a media URL"
	case utf8.RuneCountInString(f.Text) > maxText:
		errs["text"] = fmt.Sprintf("Must be at most %d characters", maxText)
	}
	if errs["text"] == "" && f.Text != "" {
		props, err := h.store.Properties(u.ws.ID)
		if err == nil {
			names := make([]string, 0, len(props))
			for _, p := range props {
				names = append(names, p.Name)
			}
			if msg := store.CheckTemplate(f.Text, names); msg != "" {
				errs["text"] = capitalize(msg)
			}
		}
	}
	if f.Media != "" {
		if !store.ValidMediaURL(f.Media) {
			errs["mediaUrl"] = capitalize(store.MediaURLMessage)
		} else {
			in.Media = []string{f.Media}
		}
	}
	var bad []string
	in.Recipients, bad = pastedNumbers(f.Numbers, u.ws.Region())
	switch {
	case len(bad) == 1:
		errs["recipientsList"] = bad[0] + " " + phoneMessage(u.ws.Region())
	case len(bad) > 1:
		shown := bad
		if len(shown) > 5 {
			shown = shown[:5]
		}
		errs["recipientsList"] = fmt.Sprintf("%d entries are not phone numbers: %s. Each %s", len(bad), strings.Join(shown, ", "),
			phoneMessage(u.ws.Region()))
	case len(in.Recipients) > store.MaxBroadcastRecipients:
		errs["recipientsList"] = fmt.Sprintf("At most %d different numbers", store.MaxBroadcastRecipients)
	}
	for name, ids := range map[string][]string{"groupIds": in.GroupIDs, "conversationIds": in.ConversationIDs, "excludeGroupIds": in.ExcludeGroupIDs} {
		if len(ids) > store.MaxBroadcastIDs {
			errs[name] = fmt.Sprintf("At most %d", store.MaxBroadcastIDs)
		}
	}
	if len(in.Recipients) == 0 && len(in.GroupIDs) == 0 && len(in.ConversationIDs) == 0 && len(bad) == 0 {
		errs["recipients"] = "Choose who gets it: a group, a conversation or phone numbers"
	}
	if f.Later {
		now := h.now()
		t, err := parseLocal(f.SendAt, u.ws.Location())
		switch {
		case f.SendAt == "":
			errs["sendAt"] = "Choose the date and time to send it"
		case err != nil:
			errs["sendAt"] = "Must be a date and time such as 2026-12-01 09:00"
		case !t.After(now):
			errs["sendAt"] = "Must be in the future"
		case t.After(store.LatestSendAt(now)):
			errs["sendAt"] = "Must be at most one year ahead"
		default:
			t = t.UTC()
			in.SendAt = &t
		}
	}
	if len(errs) == 0 {
		errs = nil
	}
	return in, errs
}

func dedupeIDs(ids []string) []string {
	out := make([]string, 0, len(ids))
	seen := map[string]bool{}
	for _, id := range ids {
		if id = strings.TrimSpace(id); id != "" && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// broadcastCreate is POST /broadcasts/new: send now or schedule, then the progress page.
func (h *Handler) broadcastCreate(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "broadcasts"
	files, fileErr, ok := h.readMediaForm(w, r, u)
	if !ok {
		return
	}
	var f views.ComposeForm
	in, errs := h.readCompose(r, u, &f)
	in.Files = files
	if fileErr != "" {
		if errs == nil {
			errs = map[string]string{}
		}
		errs["files"] = fileErr
	}
	var b store.Broadcast
	if errs == nil {
		var err error
		b, err = h.store.SendBroadcast(u.ws.ID, in)
		if h.numberRefused(w, r, u, err) {
			return
		}
		errs = fieldErrors(err, nil)
	}
	what := "sent"
	if b.Status == store.BroadcastScheduled {
		what = "schedule"
	}
	f.Errors = errs
	h.composePage(u, f, &in).answer(w, r, u, errs, "/broadcasts/"+b.ID+"?done="+what, func(v *views.ComposeView) {
		v.Error = "The broadcast was not sent: " + firstComposeError(errs)
	})
}

func firstComposeError(errs map[string]string) string {
	for _, k := range []string{"form", "from", "text", "mediaUrl", "recipients", "recipientsList", "groupIds", "conversationIds", "excludeGroupIds", "excludeConversationIds", "sendAt", "name"} {
		if e := errs[k]; e != "" {
			return strings.ToLower(e[:1]) + e[1:]
		}
	}
	return firstError(errs)
}

// broadcastOf finds the page's broadcast in the current workspace; any other id is the 404 page.
func (h *Handler) broadcastOf(w http.ResponseWriter, r *http.Request, u *ui) (store.Broadcast, bool) {
	u.section = "broadcasts"
	b, err := h.store.Broadcast(u.ws.ID, r.PathValue("broadcast"))
	if errors.Is(err, store.ErrNotFound) {
		h.notFound(w, r, u, "such broadcast")
		return b, false
	}
	if err != nil {
		h.uiError(w, r, u, err)
		return b, false
	}
	return b, true
}

func (h *Handler) progressOf(u *ui, b *store.Broadcast) views.BroadcastProgress {
	loc, now := u.ws.Location(), h.now()
	p := views.BroadcastProgress{ID: b.ID, Status: b.Status, Queued: b.TotalQueued, Sent: b.TotalSent, Delivered: b.TotalDelivered,
		Failed: b.TotalFailed, OptedOut: b.TotalOptedOut, Outstanding: b.Outstanding}
	p.Failures = failureRows(b)
	p.Cancelled, p.CanResume = b.TotalCancelled, u.isAdmin()
	if b.PausedAt != nil {
		p.PausedJudged, p.PausedFailed, p.Paused = b.PausedJudged, b.PausedFailed, formatWhen(*b.PausedAt, now, loc)
		p.AfterResume = b.ResumedAt != nil && b.ResumedAt.Before(*b.PausedAt)
	}
	for _, g := range b.HeldNow(now) {
		if b.Status == store.BroadcastCancelled {
			break // its held copies were cancelled with it
		}
		p.Held = append(p.Held, views.HeldRow{Count: g.Count, Reason: g.Reason})
	}
	if b.StartedAt != nil {
		p.Started = formatWhen(*b.StartedAt, now, loc)
	}
	if b.DeliveredAt != nil {
		p.Finished = formatWhen(*b.DeliveredAt, now, loc)
	} else if b.CancelledAt != nil {
		p.Finished = formatWhen(*b.CancelledAt, now, loc)
	}
	return p
}

func (h *Handler) renderBroadcast(w http.ResponseWriter, r *http.Request, u *ui, b *store.Broadcast, status int, errText string) {
	loc, now := u.ws.Location(), h.now()
	v := views.BroadcastView{ID: b.ID, Name: b.Name, From: u.showPhone(b.From), Text: b.Text, Created: formatWhen(b.CreatedAt, now, loc),
		Progress: h.progressOf(u, b), Notice: contactNotices[r.URL.Query().Get("done")], Error: errText}
	if b.SendAt != nil {
		v.SendAt = fmtTime(*b.SendAt, loc)
	}
	if len(b.Media) > 0 {
		v.Text = strings.TrimSpace(v.Text + "\n" + strings.Join(b.Media, "\n"))
	}
	t, err := h.store.BroadcastTargetsOf(u.ws.ID, b.ID)
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	groupNames := func(ids []string) string {
		var names []string
		for _, id := range ids {
			if g, err := h.store.Group(u.ws.ID, id); err == nil {
				names = append(names, g.Name)
			} else {
				names = append(names, "a deleted group")
			}
		}
		return strings.Join(names, ", ")
	}
	if len(t.GroupIDs) > 0 {
		v.Targets = append(v.Targets, "Groups: "+groupNames(t.GroupIDs))
	}
	if n := len(t.ConversationIDs); n > 0 {
		v.Targets = append(v.Targets, strconv.Itoa(n)+" "+pluralWord(n, "conversation"))
	}
	if n := len(t.Recipients); n > 0 {
		v.Targets = append(v.Targets, strconv.Itoa(n)+" pasted "+pluralWord(n, "number"))
	}
	if len(t.ExcludeGroupIDs) > 0 {
		v.Targets = append(v.Targets, "Leaving out: "+groupNames(t.ExcludeGroupIDs))
	}
	if n := len(t.ExcludeConversationIDs); n > 0 {
		v.Targets = append(v.Targets, "Leaving out "+strconv.Itoa(n)+" "+pluralWord(n, "conversation"))
	}
	h.render(w, r, u, status, broadcastTitle(b.Name), views.Broadcast(v))
}

func pluralWord(n int, w string) string {
	if n == 1 {
		return w
	}
	return w + "s"
}

func broadcastTitle(name string) string {
	if name == "" {
		return "Untitled broadcast"
	}
	return name
}

// broadcast is GET /broadcasts/{broadcast}: the progress page.
func (h *Handler) broadcast(w http.ResponseWriter, r *http.Request, u *ui) {
	b, ok := h.broadcastOf(w, r, u)
	if !ok {
		return
	}
	h.renderBroadcast(w, r, u, &b, http.StatusOK, "")
}

// broadcastProgress is GET /broadcasts/{broadcast}/progress: the fragment htmx polls.
func (h *Handler) broadcastProgress(w http.ResponseWriter, r *http.Request, u *ui) {
	b, ok := h.broadcastOf(w, r, u)
	if !ok {
		return
	}
	h.fragment(w, r, views.BroadcastProgressPanel(h.progressOf(u, &b)))
}

// broadcastCancel is POST /broadcasts/{broadcast}/cancel: draft, scheduled or sending only.
func (h *Handler) broadcastCancel(w http.ResponseWriter, r *http.Request, u *ui) {
	b, ok := h.broadcastOf(w, r, u)
	if !ok || !h.readUIForm(w, r, u) {
		return
	}
	_, err := h.store.CancelBroadcast(u.ws.ID, b.ID)
	if errors.Is(err, store.ErrConflict) {
		h.renderBroadcast(w, r, u, &b, http.StatusConflict, "Not cancelled: a "+b.Status+" broadcast cannot be cancelled.")
		return
	}
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	http.Redirect(w, r, "/broadcasts/"+b.ID+"?done=cancel", http.StatusSeeOther)
}
