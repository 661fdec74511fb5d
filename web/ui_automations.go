package web

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"switchboard/automation"
	"switchboard/store"
	"switchboard/views"
)

// /settings/automations: the workspace's rules in their order (enable, disable, reorder,
// delete), a rule's page (create, edit, "Test" against the latest conversations), and the rule
// JSON's export and import (admins).

var ruleNotices = map[string]string{"saved": "Rule saved.", "deleted": "Rule deleted.", "enable": "Rule enabled.",
	"disable": "Rule disabled.", "up": "Rule moved up.", "down": "Rule moved down.", "imported": "Rules imported."}

func (h *Handler) automationsView(r *http.Request, u *ui) (views.AutomationsView, error) {
	v := views.AutomationsView{Notice: ruleNotices[r.URL.Query().Get("done")]}
	rules, err := h.store.Rules(u.ws.ID)
	if err != nil {
		return v, err
	}
	c, err := h.ruleChoices(u)
	if err != nil {
		return v, err
	}
	for i, sr := range rules {
		row := views.RuleRow{ID: sr.ID, Name: sr.Rule.Name, When: ruleWhen(sr.Rule), Enabled: sr.Rule.Enabled, Stop: sr.Rule.Stop,
			First: i == 0, Last: i == len(rules)-1}
		f := ruleFormOf(sr.Rule)
		var does []string
		for _, a := range f.Actions {
			does = append(does, choiceLabel(c.actions, a))
		}
		row.Does = strings.Join(does, "; ")
		v.Rules = append(v.Rules, row)
	}
	return v, nil
}

// ruleWhen is a rule's trigger in words.
func ruleWhen(r automation.Rule) string {
	w := triggerWords[r.Trigger]
	if r.Trigger == automation.TriggerUnanswered {
		w = "A conversation is unanswered for " + strconv.Itoa(r.UnansweredMinutes) + plural(r.UnansweredMinutes, " minute", " minutes")
		if r.BusinessHoursOnly {
			w += " of business hours"
		}
	}
	return w
}

// choiceLabel is how the form names a condition or action row: its choice's label, with the
// value typed for a choice that takes one ("Add the label… vip").
func choiceLabel(choices []views.Option, p views.RulePart) string {
	label := strings.ReplaceAll(p.Kind, "|", " ")
	for _, o := range choices {
		if o.Value == p.Kind {
			label = o.Label
		}
	}
	if p.Value != "" {
		if strings.HasSuffix(label, "…") {
			return strings.TrimSuffix(label, "…") + " " + p.Value
		}
		if b, _, ok := strings.Cut(label, "… ("); ok {
			return b + " " + p.Value
		}
	}
	return label
}

func (h *Handler) automationsPage(r *http.Request, u *ui) formPage[views.AutomationsView] {
	u.section = "settings"
	return pageOf(h, "Automations", views.Automations, func() (views.AutomationsView, error) { return h.automationsView(r, u) })
}

// settingsAutomations is GET /settings/automations.
func (h *Handler) settingsAutomations(w http.ResponseWriter, r *http.Request, u *ui) {
	h.automationsPage(r, u).show(w, r, u, http.StatusOK, nil)
}

// ruleAction is POST /settings/automations/{rule}/{action}: enable, disable, up, down, delete.
func (h *Handler) ruleAction(w http.ResponseWriter, r *http.Request, u *ui) {
	id, action := r.PathValue("rule"), r.PathValue("action")
	var err error
	switch action {
	case "enable", "disable":
		err = h.store.SetRuleEnabled(u.ws.ID, id, action == "enable")
	case "up":
		err = h.store.MoveRule(u.ws.ID, id, -1)
	case "down":
		err = h.store.MoveRule(u.ws.ID, id, 1)
	case "delete":
		err = h.store.DeleteRule(u.ws.ID, id)
		action = "deleted"
	default:
		h.notFound(w, r, u, "such page")
		return
	}
	errs := fieldErrors(err, nil)
	h.automationsPage(r, u).answer(w, r, u, errs, "/settings/automations?done="+action, func(v *views.AutomationsView) {
		v.Error = errs["form"]
	})
}

// ruleFormPage renders a rule's page: v as given, with the form's choices and empty rows.
func (h *Handler) ruleFormPage(w http.ResponseWriter, r *http.Request, u *ui, status int, v views.RuleFormView, extra int) {
	u.section = "settings"
	c, err := h.ruleChoices(u)
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	padRows(&v, extra)
	withChoices(&v, c)
	title := "New rule"
	if v.ID != "" {
		title = "Rule " + v.Name
	}
	h.render(w, r, u, status, title, views.RuleForm(v))
}

// ruleNew is GET /settings/automations/new.
func (h *Handler) ruleNew(w http.ResponseWriter, r *http.Request, u *ui) {
	h.ruleFormPage(w, r, u, http.StatusOK, views.RuleFormView{Enabled: true, Match: "all", Trigger: automation.TriggerMessageReceived}, 2)
}

// savedRule is the rule of the path, or false when it answered (not found).
func (h *Handler) savedRule(w http.ResponseWriter, r *http.Request, u *ui) (automation.Rule, bool) {
	rt, err := h.store.RoutingOf(u.ws.ID)
	if err != nil {
		h.uiError(w, r, u, err)
		return automation.Rule{}, false
	}
	rule, ok := rt.Rule(r.PathValue("rule"))
	if !ok {
		h.notFound(w, r, u, "such rule")
		return rule, false
	}
	rule.ID = r.PathValue("rule")
	return rule, true
}

// ruleEdit is GET /settings/automations/{rule}.
func (h *Handler) ruleEdit(w http.ResponseWriter, r *http.Request, u *ui) {
	rule, ok := h.savedRule(w, r, u)
	if !ok {
		return
	}
	v := ruleFormOf(rule)
	v.Notice = ruleNotices[r.URL.Query().Get("done")]
	h.ruleFormPage(w, r, u, http.StatusOK, v, 1)
}

// ruleTest is GET /settings/automations/{rule}/test: the saved rule run against the latest
// conversations, without acting.
func (h *Handler) ruleTest(w http.ResponseWriter, r *http.Request, u *ui) {
	rule, ok := h.savedRule(w, r, u)
	if !ok {
		return
	}
	v := ruleFormOf(rule)
	if err := h.tryRule(u, rule, &v); err != nil {
		h.uiError(w, r, u, err)
		return
	}
	h.ruleFormPage(w, r, u, http.StatusOK, v, 1)
}

// tryRule fills v with what rule would do to the latest conversations.
func (h *Handler) tryRule(u *ui, rule automation.Rule, v *views.RuleFormView) error {
	trials, err := h.store.TryRule(u.ws.ID, u.user.ID, rule)
	if err != nil {
		return err
	}
	v.Tested = true
	loc, now := u.ws.Location(), h.now()
	for _, t := range trials {
		title := t.ContactName
		if title == "" {
			title = u.showPhones(t.Addresses)
		}
		row := views.RuleTrialRow{ConversationID: t.ConversationID, Title: title, Text: t.Text, Fires: t.Fires,
			When: formatWhen(t.At, now, loc), Would: strings.Join(t.Would, "; ")}
		if !t.Fires {
			row.Would = "nothing: the conditions do not hold"
		}
		v.Trials = append(v.Trials, row)
	}
	return nil
}

// ruleCreate is POST /settings/automations/new and ruleSave POST /settings/automations/{rule}:
// "Save rule" saves it (a refused rule comes back with its errors, nothing saved), "Test" runs
// it as typed against the latest conversations without saving, "More rows" adds empty rows.
func (h *Handler) ruleCreate(w http.ResponseWriter, r *http.Request, u *ui) {
	h.ruleSubmit(w, r, u, "")
}

func (h *Handler) ruleSave(w http.ResponseWriter, r *http.Request, u *ui) {
	if _, ok := h.savedRule(w, r, u); !ok {
		return
	}
	h.ruleSubmit(w, r, u, r.PathValue("rule"))
}

func (h *Handler) ruleSubmit(w http.ResponseWriter, r *http.Request, u *ui, id string) {
	if !h.readUIForm(w, r, u) {
		return
	}
	c, err := h.ruleChoices(u)
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	v, rule, rows := readRuleForm(r, c)
	v.ID = id
	formErrs := map[string]string{}
	for k, msg := range rows {
		if strings.HasPrefix(k, "!") {
			formErrs[k] = msg
		}
	}
	switch r.PostForm.Get("op") {
	case "more":
		h.ruleFormPage(w, r, u, http.StatusOK, v, 3)
		return
	case "test":
		if len(formErrs) == 0 {
			err = h.tryRule(u, rule, &v)
		}
	default:
		if len(formErrs) > 0 {
			break
		}
		var saved store.StoredRule
		if id == "" {
			saved, err = h.store.AddRule(u.ws.ID, rule)
		} else {
			saved, err = h.store.UpdateRule(u.ws.ID, id, rule)
		}
		if err == nil {
			http.Redirect(w, r, "/settings/automations/"+saved.ID+"?done=saved", http.StatusSeeOther)
			return
		}
	}
	var verr store.ValidationError
	var serr *store.Error
	if err != nil && !errors.As(err, &verr) && !errors.As(err, &serr) {
		h.uiError(w, r, u, err)
		return
	}
	placeRuleErrors(&v, fieldErrors(err, nil), rows)
	status := http.StatusOK
	if len(v.Errors) > 0 || hasPartErrors(&v) {
		status = http.StatusUnprocessableEntity
	}
	h.ruleFormPage(w, r, u, status, v, 0)
}

func hasPartErrors(v *views.RuleFormView) bool {
	for _, p := range append(append([]views.RulePart{}, v.Conditions...), v.Actions...) {
		if p.Error != "" {
			return true
		}
	}
	return false
}

// ---- the rule JSON: export and import ----

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// writeRuleJSON sends v as an indented JSON file named name.
func writeRuleJSON(w http.ResponseWriter, name string, v any) {
	body, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		writeError(w, http.StatusInternalServerError, "internal error")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(append(body, '\n'))
}

// ruleExport is GET /settings/automations/{rule}/export: the rule's document.
func (h *Handler) ruleExport(w http.ResponseWriter, r *http.Request, u *ui) {
	rule, ok := h.savedRule(w, r, u)
	if !ok {
		return
	}
	name := strings.Trim(unsafeName.ReplaceAllString(strings.ToLower(rule.Name), "-"), "-")
	if name == "" {
		name = "rule"
	}
	writeRuleJSON(w, "rule-"+name+".json", rule)
}

// rulesExport is GET /settings/automations/export: every rule, in order, as an array.
func (h *Handler) rulesExport(w http.ResponseWriter, r *http.Request, u *ui) {
	rules, err := h.store.Rules(u.ws.ID)
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	out := make([]automation.Rule, 0, len(rules))
	for _, sr := range rules {
		out = append(out, sr.Rule)
	}
	writeRuleJSON(w, "rules.json", out)
}

// maxRuleImport bounds an imported file.
const maxRuleImport = 1 << 20

// rulesImport is POST /settings/automations/import: a file or pasted JSON, one rule or an
// array; all or nothing.
func (h *Handler) rulesImport(w http.ResponseWriter, r *http.Request, u *ui) {
	r.Body = http.MaxBytesReader(w, r.Body, maxRuleImport+64<<10)
	var doc []byte
	var f views.ImportForm
	if err := r.ParseMultipartForm(maxRuleImport); err != nil && !errors.Is(err, http.ErrNotMultipart) {
		f.Errors = map[string]string{"file": "The file could not be read (at most 1 MiB)."}
	} else {
		f.JSON = r.FormValue("json")
		doc = []byte(f.JSON)
		if file, _, err := r.FormFile("file"); err == nil {
			data, rerr := io.ReadAll(io.LimitReader(file, maxRuleImport+1))
			file.Close()
			switch {
			case rerr != nil || len(data) > maxRuleImport:
				f.Errors = map[string]string{"file": "The file could not be read (at most 1 MiB)."}
			case len(strings.TrimSpace(string(data))) > 0:
				doc = data
			}
		}
		if f.Errors == nil && strings.TrimSpace(string(doc)) == "" {
			f.Errors = map[string]string{"json": "Choose a file or paste the JSON"}
		}
	}
	if f.Errors == nil {
		_, err := h.store.ImportRules(u.ws.ID, doc)
		var verr store.ValidationError
		if err != nil && !errors.As(err, &verr) {
			var serr *store.Error
			if !errors.As(err, &serr) {
				h.uiError(w, r, u, err)
				return
			}
		}
		f.Errors = fieldErrors(err, nil)
	}
	h.automationsPage(r, u).answer(w, r, u, f.Errors, "/settings/automations?done=imported", func(v *views.AutomationsView) {
		v.Import = f
	})
}
