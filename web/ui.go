package web

import (
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/a-h/templ"

	"switchboard/store"
	"switchboard/views"
)

// Who may open a page.
const (
	roleSignedIn = iota // any signed-in user
	roleMember          // a member of the current workspace (or a superuser)
	roleAdmin           // an admin member of the current workspace (or a superuser)
)

const sessionWorkspace = "workspace"

// ui is a signed-in request: the user, the workspaces they may open and the current one.
type ui struct {
	user       store.User
	workspaces []store.Workspace
	ws         store.Workspace // zero when the user has none
	role       string          // admin or member in ws; superusers count as admin
	section    string
	// home is the session's current workspace; a page of another of the user's workspaces
	// (a conversation link) acts on ws without switching it.
	home string
	// liveFrom is the workspace's last live event before the page loaded its data: the page's
	// stream starts after it, so nothing that happens while the page loads is missed.
	liveFrom uint64
}

func (u *ui) isAdmin() bool { return u.user.Superuser || u.role == "admin" }

// root is GET /: the inbox when signed in, else the sign-in page.
func (h *Handler) root(w http.ResponseWriter, r *http.Request) {
	if _, ok := h.cfg.Sessions.CurrentUser(r); ok {
		http.Redirect(w, r, "/inbox", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// page loads the signed-in user and the current workspace, checks the role the page needs,
// and calls fn. Signed out, a GET goes to the sign-in page and back; a POST to the sign-in page.
func (h *Handler) page(need int, fn func(http.ResponseWriter, *http.Request, *ui)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = h.cfg.Sessions.remember(r) // one session read for the page's questions
		user, ok := h.cfg.Sessions.CurrentUser(r)
		if !ok {
			to := "/login"
			// A session that passed the password but owes the second factor, or enrolment,
			// goes there and nowhere else.
			switch h.cfg.Sessions.PendingStage(r) {
			case store.SessionStageCode:
				to = "/login/code"
			case store.SessionStageEnrol:
				to = "/login/enrol"
			}
			if r.Method == http.MethodGet {
				next := r.URL.RequestURI()
				if r.Header.Get("HX-Request") == "true" {
					next = r.Header.Get("HX-Current-URL") // the page, not its fragment
					if u, err := url.Parse(next); err == nil {
						next = u.RequestURI()
					}
				}
				to += "?next=" + url.QueryEscape(next)
			}
			if r.Header.Get("HX-Request") == "true" {
				// An htmx poll must not swap the sign-in page into a fragment: the whole page goes.
				w.Header().Set("HX-Redirect", to)
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			http.Redirect(w, r, to, http.StatusSeeOther)
			return
		}
		u := &ui{user: user, section: "inbox"}
		var err error
		if user.Superuser {
			u.workspaces, err = h.store.Workspaces()
		} else {
			u.workspaces, err = h.store.UserWorkspaces(user.ID)
		}
		if err != nil {
			h.uiError(w, r, u, err)
			return
		}
		// An archived workspace is out of everyone's choice until a superuser restores it.
		archived, err := h.store.ArchivedWorkspaces()
		if err != nil {
			h.uiError(w, r, u, err)
			return
		}
		u.workspaces = slices.DeleteFunc(u.workspaces, func(ws store.Workspace) bool { return archived[ws.ID] })
		want := h.cfg.Sessions.SessionValue(r, sessionWorkspace)
		for _, ws := range u.workspaces {
			if ws.ID == want {
				u.ws = ws
			}
		}
		if u.ws.ID == "" && len(u.workspaces) > 0 {
			u.ws = u.workspaces[0]
		}
		u.home = u.ws.ID
		if u.ws.ID != "" {
			if u.liveFrom, err = h.store.LastLiveEvent(u.ws.ID); err != nil {
				h.uiError(w, r, u, err)
				return
			}
			if u.role, err = h.store.MemberRole(u.ws.ID, user.ID); err != nil && !errors.Is(err, store.ErrForbidden) {
				h.uiError(w, r, u, err)
				return
			}
		}
		if err := h.cfg.Sessions.Touch(w, r, "", ""); err != nil {
			slog.WarnContext(r.Context(), "session touch", "request_id", requestID(r.Context()), "error", err)
		}
		switch {
		case need >= roleMember && u.ws.ID == "":
			http.Redirect(w, r, "/inbox", http.StatusSeeOther) // where a workspace is created
			return
		case need == roleAdmin && !u.isAdmin():
			h.forbidden(w, r, u, "Only an admin of "+u.ws.Name+" can do this.")
			return
		}
		fn(w, r, u)
	})
}

// render writes a signed-in page in the app frame. templ.Handler buffers, so a render error
// never sends half a page with 200. Pages are never cached or framed.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, u *ui, status int, title string, page templ.Component) {
	f := views.Frame{Title: title, UserName: u.user.Name, Superuser: u.user.Superuser, Current: u.ws.ID,
		Section: u.section, Back: r.URL.Path, Live: u.ws.ID != "", LiveFrom: u.liveFrom}
	if f.Live {
		// The header's unread count; a failure to read it only leaves the count out.
		f.Unread, _ = h.store.UnreadCount(u.ws.ID, u.user.ID)
	}
	if u.user.ID != "" {
		// The user's availability, chosen in the header (a failure only leaves it out).
		f.Availability, f.Chosen, _ = h.store.Availability(u.user.ID)
	}
	if f.UserName == "" {
		f.UserName = u.user.Email
	}
	for _, ws := range u.workspaces {
		f.Workspaces = append(f.Workspaces, views.Option{Value: ws.ID, Label: ws.Name})
	}
	setPageHeaders(w)
	templ.Handler(views.App(f, page), templ.WithStatus(status), templ.WithErrorHandler(func(r *http.Request, err error) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			slog.ErrorContext(r.Context(), "render", "request_id", requestID(r.Context()), "path", logPath(r.URL.Path), "error", err)
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte("Something went wrong. Please try again.\n"))
		})
	})).ServeHTTP(w, r)
}

// fragment writes a component alone (an htmx swap), with the same buffering.
func (h *Handler) fragment(w http.ResponseWriter, r *http.Request, c templ.Component) {
	setPageHeaders(w)
	templ.Handler(c).ServeHTTP(w, r)
}

func setPageHeaders(w http.ResponseWriter) {
	hd := w.Header()
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
}

func (h *Handler) forbidden(w http.ResponseWriter, r *http.Request, u *ui, text string) {
	h.render(w, r, u, http.StatusForbidden, "Not allowed", views.ErrorPage("Not allowed", text))
}

// crossOrigin is the protection of every browser form: a post from another site is answered
// with the product's 403 page, not the standard library's line of text.
func (h *Handler) crossOrigin() *http.CrossOriginProtection {
	p := http.NewCrossOriginProtection()
	p.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setPageHeaders(w)
		templ.Handler(views.Layout("Not allowed", views.ErrorPage("Not allowed",
			"This form was sent from another site (a cross-origin request), so it was refused and nothing changed. Open Switchboard and send it from there.")),
			templ.WithStatus(http.StatusForbidden)).ServeHTTP(w, r)
	}))
	return p
}

// notFound is the page for an unknown or foreign id: another workspace's data is never shown,
// and its existence is not told apart from an id that does not exist.
func (h *Handler) notFound(w http.ResponseWriter, r *http.Request, u *ui, what string) {
	h.render(w, r, u, http.StatusNotFound, "Not found", views.ErrorPage("Not found", "There is no "+what+" here. It may have been deleted, or it belongs to a workspace you cannot open."))
}

// uiError answers a store error: not found and forbidden have their pages; anything else is
// logged and shown as a 500 page without its text.
func (h *Handler) uiError(w http.ResponseWriter, r *http.Request, u *ui, err error) {
	switch {
	case errors.Is(err, store.ErrNotFound):
		h.notFound(w, r, u, "such page")
	case errors.Is(err, store.ErrForbidden):
		h.forbidden(w, r, u, "You are not a member of this workspace.")
	case errors.Is(err, store.ErrUnavailable):
		h.refused(w, r, errors.Is(err, store.ErrUncertain))
	default:
		slog.ErrorContext(r.Context(), "ui", "request_id", requestID(r.Context()), "path", logPath(r.URL.Path), "error", err)
		h.render(w, r, u, http.StatusInternalServerError, "Something went wrong", views.ErrorPage("Something went wrong", "Please try again."))
	}
}

// readUIForm parses a form post of at most 64 KiB; false when it answered already.
func (h *Handler) readUIForm(w http.ResponseWriter, r *http.Request, u *ui) bool {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		h.render(w, r, u, http.StatusBadRequest, "Bad request", views.ErrorPage("Bad request", "The form could not be read."))
		return false
	}
	return true
}

// fieldErrors turns a store error into the form's errors by field ("form" for the rest); nil
// when err is nil. rename maps a store field to the form's.
func fieldErrors(err error, rename map[string]string) map[string]string {
	if err == nil {
		return nil
	}
	out := map[string]string{}
	var verrs store.ValidationError
	var se *store.Error
	switch {
	case errors.As(err, &verrs):
		for _, fe := range verrs {
			f := fe.Field
			if to, ok := rename[f]; ok {
				f = to
			}
			if _, dup := out[f]; !dup {
				out[f] = capitalize(fe.Message)
			}
		}
	case errors.As(err, &se):
		out["form"] = capitalize(se.Msg)
	default:
		out["form"] = "Something went wrong. Please try again."
	}
	return out
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// switchWorkspace is POST /workspace: choose the current workspace among the user's.
func (h *Handler) switchWorkspace(w http.ResponseWriter, r *http.Request, u *ui) {
	if !h.readUIForm(w, r, u) {
		return
	}
	id := r.PostForm.Get("workspace")
	if !slices.ContainsFunc(u.workspaces, func(ws store.Workspace) bool { return ws.ID == id }) {
		h.notFound(w, r, u, "such workspace")
		return
	}
	if err := h.cfg.Sessions.Touch(w, r, sessionWorkspace, id); err != nil {
		h.uiError(w, r, u, err)
		return
	}
	back := localNext(r.PostForm.Get("back"))
	// A page of another workspace's thing makes no sense in this one: go to its section. A
	// conversation of the chosen workspace (the thread page's "Switch to" form) stays.
	if conv, ok := strings.CutPrefix(back, "/inbox/"); ok {
		if _, err := h.store.Conversation(id, strings.TrimSuffix(conv, "/")); err != nil {
			back = "/inbox"
		}
	}
	if back == "" {
		back = "/inbox"
	}
	for _, section := range []string{"/contacts/", "/groups/", "/broadcasts/"} {
		if strings.HasPrefix(back, section) {
			back = strings.TrimSuffix(section, "/")
		}
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}

// createWorkspace is POST /workspaces: a superuser creates a workspace and becomes its admin.
func (h *Handler) createWorkspace(w http.ResponseWriter, r *http.Request, u *ui) {
	if !u.user.Superuser {
		h.forbidden(w, r, u, "Only an administrator of the installation can create workspaces.")
		return
	}
	if !h.readUIForm(w, r, u) {
		return
	}
	name := strings.TrimSpace(r.PostForm.Get("name"))
	ws, err := h.store.CreateWorkspaceFor(name, u.user.ID)
	if errs := fieldErrors(err, nil); errs != nil {
		u.section = "inbox"
		h.render(w, r, u, http.StatusUnprocessableEntity, "Create a workspace", views.NoWorkspace(true, name, errs))
		return
	}
	if err := h.cfg.Sessions.Touch(w, r, sessionWorkspace, ws.ID); err != nil {
		h.uiError(w, r, u, err)
		return
	}
	http.Redirect(w, r, "/inbox?done=workspace", http.StatusSeeOther)
}

// addNumber is POST /settings/numbers: an admin adds a sandbox number to the current workspace.
func (h *Handler) addNumber(w http.ResponseWriter, r *http.Request, u *ui) {
	if !h.readUIForm(w, r, u) {
		return
	}
	if r.PostForm.Get("page") == "settings" {
		h.addNumberOnSettings(w, r, u)
		return
	}
	f := views.AddNumberForm{Phone: strings.TrimSpace(r.PostForm.Get("phone")), Name: strings.TrimSpace(r.PostForm.Get("name"))}
	e164, err := u.readPhone("phone", f.Phone)
	if err == nil {
		_, err = h.store.CreateNumber(u.ws.ID, store.NumberInput{Phone: e164, Name: f.Name, Carrier: store.ProviderSandbox})
	}
	f.Errors = fieldErrors(err, nil)
	h.inboxPage(r, u).answer(w, r, u, f.Errors, "/inbox?done=number", func(v *views.InboxView) {
		v.AddNumber = f
		if len(v.Numbers) > 0 { // the form is not on the page: say why here
			v.Error = "The number was not added: " + firstError(f.Errors)
		}
	})
}
