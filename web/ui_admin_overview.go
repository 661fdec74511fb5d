package web

import (
	"net/http"

	"switchboard/views"
)

// adminOverview is GET /admin: the installation at a glance (superusers), each part linking to
// the page that manages it, under the warning of numbers whose texts no longer arrive.
func (h *Handler) adminOverview(w http.ResponseWriter, r *http.Request, u *ui) {
	var v views.AdminOverviewView
	all, err := h.store.Workspaces()
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	archived, err := h.store.ArchivedWorkspaces()
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	v.Workspaces = len(all)
	for _, ws := range all {
		if archived[ws.ID] {
			v.Archived++
		}
	}
	users, err := h.store.Users()
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	v.Users = len(users)
	for _, usr := range users {
		if usr.Disabled {
			v.Disabled++
		}
		if usr.Superuser {
			v.Superusers++
		}
		if usr.TwoFactor {
			v.TwoFactor++
		}
	}
	if v.TwoFactorRequired, err = h.store.TwoFactorRequired(); err != nil {
		h.uiError(w, r, u, err)
		return
	}
	v.TwoFactorRequired = v.TwoFactorRequired || h.cfg.Sessions.cfg.RequireTwoFactor
	if h.cfg.OAuth != nil {
		cs, err := h.cfg.OAuth.Clients()
		if err != nil {
			h.uiError(w, r, u, err)
			return
		}
		v.OAuth, v.Clients = true, len(cs)
	}
	if sched := h.cfg.Backups; sched != nil {
		v.BackupTarget = sched.Target().String()
		if st := sched.Status(); st.Failing() {
			v.BackupFailure = fmtTime(st.LastFailure, u.ws.Location()) + ": " + st.LastError
		}
	}
	if h.cfg.Accounts != nil {
		v.CarrierAccounts = true
		for _, c := range h.accountCarriers("") {
			v.Carriers = append(v.Carriers, c.Label)
		}
	}
	if v.Miswired, err = h.miswiredRows(u); err != nil {
		h.uiError(w, r, u, err)
		return
	}
	if v.Recovery, err = h.recoveryRows(u); err != nil {
		h.uiError(w, r, u, err)
		return
	}
	h.render(w, r, u, http.StatusOK, "Administration", views.AdminOverview(v))
}
