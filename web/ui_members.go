package web

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/a-h/templ"

	"switchboard/store"
	"switchboard/views"
)

var memberNotices = map[string]string{"role": "Role changed.", "removed": "Member removed. Their webhook subscriptions in this workspace were deleted.",
	"revoked": "Invitation revoked: its link no longer works."}

func (h *Handler) membersView(r *http.Request, u *ui) (views.MembersView, error) {
	v := views.MembersView{Notice: memberNotices[r.URL.Query().Get("done")]}
	ms, err := h.store.Members(u.ws.ID)
	if err != nil {
		return v, err
	}
	for _, m := range ms {
		usr, err := h.store.User(m.UserID)
		if err != nil {
			return v, err
		}
		v.Members = append(v.Members, views.MemberRow{UserID: usr.ID, Name: pickName(usr), Email: usr.Email, Role: m.Role, Self: usr.ID == u.user.ID})
	}
	invs, err := h.store.Invitations(u.ws.ID)
	for _, i := range invs {
		v.Invitations = append(v.Invitations, views.InvitationRow{ID: i.ID, Email: i.Email, Role: i.Role, Status: i.Status,
			Expires: fmtTime(i.ExpiredAt, u.ws.Location())})
	}
	return v, err
}

func pickName(u store.User) string {
	if u.Name != "" {
		return u.Name
	}
	return u.Email
}

// membersPage is /settings/members, for the forms that post back to it.
func (h *Handler) membersPage(r *http.Request, u *ui) formPage[views.MembersView] {
	return pageOf(h, "Members", views.Members, func() (views.MembersView, error) { return h.membersView(r, u) })
}

func (h *Handler) settingsMembers(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	h.membersPage(r, u).show(w, r, u, http.StatusOK, nil)
}

// publicURL is the server's public address for links people copy.
func (h *Handler) publicURL(r *http.Request) string {
	if h.cfg.BaseURL != "" {
		return strings.TrimRight(h.cfg.BaseURL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// invite is POST /settings/members: it answers with the page (200) holding the one-time link,
// which is not kept anywhere but in the invited person's hands.
func (h *Handler) invite(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	if !h.readUIForm(w, r, u) {
		return
	}
	email, role := strings.TrimSpace(r.PostForm.Get("email")), r.PostForm.Get("role")
	var mailFor []store.MailFor
	m := h.cfg.Sessions.mailer()
	if m != nil {
		link := h.publicURL(r) + "/invite/"
		who, ws := store.MailText(u.user.Name), store.MailText(u.ws.Name) // a name cannot add lines to the e-mail
		mailFor = append(mailFor, func(token string) *store.Mail {
			return &store.Mail{To: email, Subject: "You are invited to " + ws + " on Switchboard",
				Body: who + " invited you to the workspace " + ws + " on Switchboard as " + article(role) + " " + role + ".\n\n" +
					"Accept the invitation here (the link works once, for 7 days):\n" + link + token + "\n"}
		})
	}
	inv, plain, err := h.store.CreateInvitation(u.ws.ID, email, role, mailFor...)
	if err == nil && m != nil {
		m.Wake()
	}
	if errs := fieldErrors(err, nil); errs != nil {
		h.membersPage(r, u).show(w, r, u, http.StatusUnprocessableEntity, func(v *views.MembersView) {
			v.Email, v.Role, v.Errors = email, role, errs
		})
		return
	}
	h.membersPage(r, u).show(w, r, u, http.StatusOK, func(v *views.MembersView) {
		v.Link, v.Invited, v.Mailed = h.publicURL(r)+"/invite/"+plain, email, m != nil
		v.Replaced = inv.Replaced > 0
	})
}

func (h *Handler) removeMember(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	id := r.PathValue("user")
	if id == u.user.ID {
		h.membersPage(r, u).show(w, r, u, http.StatusUnprocessableEntity, func(v *views.MembersView) {
			v.Error = "You cannot remove yourself; ask another admin."
		})
		return
	}
	if err := h.store.RemoveMember(u.ws.ID, id); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			h.notFound(w, r, u, "such member")
			return
		}
		h.uiError(w, r, u, err)
		return
	}
	http.Redirect(w, r, "/settings/members?done=removed", http.StatusSeeOther)
}

// setMemberRole is POST /settings/members/{user}/role; an admin does not change their own role
// here (another admin does), and the last admin stays one.
func (h *Handler) setMemberRole(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	if !h.readUIForm(w, r, u) {
		return
	}
	id := r.PathValue("user")
	var err error
	if id == u.user.ID {
		err = &store.Error{Err: store.ErrConflict, Msg: "you cannot change your own role; ask another admin"}
	} else {
		_, err = h.store.SetMemberRole(u.ws.ID, id, r.PostForm.Get("role"))
	}
	if errors.Is(err, store.ErrNotFound) {
		h.notFound(w, r, u, "such member")
		return
	}
	errs := fieldErrors(err, nil)
	h.membersPage(r, u).answer(w, r, u, errs, "/settings/members?done=role", func(v *views.MembersView) {
		v.Error = "The role was not changed: " + firstError(errs)
	})
}

func (h *Handler) revokeInvitation(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	err := h.store.RevokeInvitation(u.ws.ID, r.PathValue("invitation"))
	switch {
	case errors.Is(err, store.ErrNotFound):
		h.notFound(w, r, u, "such invitation")
		return
	case errors.Is(err, store.ErrConflict):
		h.membersPage(r, u).show(w, r, u, http.StatusConflict, func(v *views.MembersView) {
			v.Error = firstError(fieldErrors(err, nil))
		})
		return
	case err != nil:
		h.uiError(w, r, u, err)
		return
	}
	http.Redirect(w, r, "/settings/members?done=revoked", http.StatusSeeOther)
}

// ---- /invite/{token} ----

// inviteView loads the link's invitation; status is the page's HTTP status when it is refused.
func (h *Handler) inviteView(r *http.Request) (views.InviteView, int) {
	token := r.PathValue("token")
	v := views.InviteView{Token: token}
	inv, err := h.store.InvitationByToken(token)
	if err != nil {
		v.Refused = "This invitation link is not valid."
		return v, http.StatusNotFound
	}
	ws, err := h.store.Workspace(inv.WorkspaceID)
	if err != nil {
		v.Refused = "This invitation link is not valid."
		return v, http.StatusNotFound
	}
	v.Workspace, v.Email, v.Role = ws.Name, inv.Email, inv.Role
	switch inv.Status {
	case store.InvitationAccepted:
		v.Refused = "This invitation link has been used already."
	case store.InvitationExpired:
		v.Refused = "This invitation link has expired: links work for 7 days."
	case store.InvitationRevoked:
		v.Refused = "This invitation was revoked."
	}
	if v.Refused != "" {
		return v, http.StatusGone
	}
	if usr, ok := h.cfg.Sessions.CurrentUser(r); ok {
		v.SignedInAs = pickName(usr)
	}
	return v, http.StatusOK
}

func (h *Handler) renderPublic(w http.ResponseWriter, r *http.Request, status int, title string, page templ.Component) {
	setPageHeaders(w)
	w.Header().Set("Referrer-Policy", "no-referrer") // the token is in the URL
	templ.Handler(views.Layout(title, page), templ.WithStatus(status)).ServeHTTP(w, r)
}

func (h *Handler) invitePage(w http.ResponseWriter, r *http.Request) {
	v, status := h.inviteView(r)
	h.renderPublic(w, r, status, "Invitation", views.Invite(v))
}

// acceptInvite is POST /invite/{token}: the signed-in user joins, or a new account is made for
// the invited email and then signs in.
func (h *Handler) acceptInvite(w http.ResponseWriter, r *http.Request) {
	v, status := h.inviteView(r)
	if status != http.StatusOK {
		h.renderPublic(w, r, status, "Invitation", views.Invite(v))
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		h.renderPublic(w, r, http.StatusBadRequest, "Invitation", views.Invite(v))
		return
	}
	var err error
	var wsID string
	var joined store.User // a new account
	if usr, ok := h.cfg.Sessions.CurrentUser(r); ok {
		var m store.Membership
		m, err = h.store.AcceptInvitation(v.Token, usr.ID)
		wsID = m.WorkspaceID
	} else {
		v.Name = strings.TrimSpace(r.PostForm.Get("name"))
		joined, _, err = h.store.AcceptInvitationNewUser(v.Token, v.Name, r.PostForm.Get("password"))
	}
	if err != nil {
		v.Errors = fieldErrors(err, nil)
		status := http.StatusUnprocessableEntity
		if errors.Is(err, store.ErrConflict) {
			status = http.StatusConflict
		}
		h.renderPublic(w, r, status, "Invitation", views.Invite(v))
		return
	}
	if wsID == "" {
		// A new account is signed in at once: the password was just set, through a link that
		// only its owner has. It goes on to the inbox, or first to two-factor enrolment when
		// that is required, as after any sign-in.
		ss := h.cfg.Sessions
		stage := ""
		if ss.twoFactorRequired() {
			stage = store.SessionStageEnrol
		}
		if err := ss.startSession(w, r, joined, stage); err != nil {
			h.renderPublic(w, r, http.StatusOK, "Welcome", views.Notice("Welcome to "+v.Workspace,
				"Your account is ready and you are "+article(v.Role)+" "+v.Role+" of "+v.Workspace+". Sign in with "+v.Email+" and your new password.",
				"/login?next="+url.QueryEscape("/inbox"), "Sign in"))
			return
		}
		ss.afterPassword(w, r, joined, stage, "/inbox?done=joined")
		return
	}
	_ = h.cfg.Sessions.Touch(w, r, sessionWorkspace, wsID)
	http.Redirect(w, r, "/inbox", http.StatusSeeOther)
}

func article(role string) string {
	if role == "admin" {
		return "an"
	}
	return "a"
}
