package web

import (
	"errors"
	"net/http"
	"strings"

	"switchboard/store"
	"switchboard/views"
)

var adminUserNotices = map[string]string{
	"disable": "User disabled: their sessions and tokens stopped working.", "enable": "User enabled.",
	"promote": "User is now a superuser.", "demote": "User is no longer a superuser; their sessions were signed out.",
	"require-2fa": "Two-factor setting saved.",
}

// adminUsersView lists every user with what a superuser may do to each.
func (h *Handler) adminUsersView(u *ui) (views.AdminUsersView, error) {
	users, err := h.store.Users()
	if err != nil {
		return views.AdminUsersView{}, err
	}
	var v views.AdminUsersView
	for _, usr := range users {
		wss, err := h.store.UserWorkspaces(usr.ID)
		if err != nil {
			return v, err
		}
		names := make([]string, 0, len(wss))
		for _, ws := range wss {
			names = append(names, ws.Name)
		}
		v.Rows = append(v.Rows, views.AdminUserRow{ID: usr.ID, Name: usr.Name, Email: usr.Email, Superuser: usr.Superuser,
			Disabled: usr.Disabled, TwoFactor: usr.TwoFactor, Self: usr.ID == u.user.ID,
			Created: fmtTime(usr.CreatedAt, u.ws.Location()), Workspaces: strings.Join(names, ", ")})
	}
	v.RequiredByFlag = h.cfg.Sessions.cfg.RequireTwoFactor
	v.RequireTwoFactor, err = h.store.TwoFactorRequired()
	return v, err
}

// usersPage is /admin/users, for the forms that post back to it.
func (h *Handler) usersPage(u *ui) formPage[views.AdminUsersView] {
	return pageOf(h, "Users", views.AdminUsers, func() (views.AdminUsersView, error) { return h.adminUsersView(u) })
}

// adminUserAction is POST /admin/users/{user}/{action}: disable, enable, promote, demote, or
// reset-link (a one-hour password reset link, shown once on the page).
func (h *Handler) adminUserAction(w http.ResponseWriter, r *http.Request, u *ui) {
	id, action := r.PathValue("user"), r.PathValue("action")
	var err error
	switch action {
	case "disable", "enable":
		err = h.store.SetUserDisabled(u.user.ID, id, action == "disable")
	case "promote", "demote":
		err = h.store.SetSuperuser(u.user.ID, id, action == "promote")
	case "reset-link":
		target, terr := h.store.User(id)
		if terr != nil {
			h.uiError(w, r, u, terr)
			return
		}
		token, terr := h.store.CreateReset(id, h.cfg.Sessions.now())
		if terr != nil {
			h.uiError(w, r, u, terr)
			return
		}
		h.usersPage(u).show(w, r, u, http.StatusOK, func(v *views.AdminUsersView) {
			v.ResetLink, v.ResetFor = h.cfg.Sessions.cfg.BaseURL+"/reset/"+token, target.Email
		})
		return
	default:
		h.notFound(w, r, u, "such action")
		return
	}
	var se *store.Error
	if errors.As(err, &se) && !errors.Is(err, store.ErrNotFound) {
		status := http.StatusConflict
		if errors.Is(err, store.ErrForbidden) {
			status = http.StatusForbidden
		}
		h.usersPage(u).show(w, r, u, status, func(v *views.AdminUsersView) { v.Error = capitalize(se.Msg) + "." })
		return
	}
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	http.Redirect(w, r, "/admin/users?done="+action, http.StatusSeeOther)
}

// adminRequire2FA is POST /admin/users/require-2fa: require two-factor for everyone, or not.
func (h *Handler) adminRequire2FA(w http.ResponseWriter, r *http.Request, u *ui) {
	if !h.readUIForm(w, r, u) {
		return
	}
	if err := h.store.SetTwoFactorRequired(r.PostForm.Get("on") == "true"); err != nil {
		h.uiError(w, r, u, err)
		return
	}
	http.Redirect(w, r, "/admin/users?done=require-2fa", http.StatusSeeOther)
}
