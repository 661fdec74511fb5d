package web

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"switchboard/oauth"
	"switchboard/store"
	"switchboard/views"
)

// The superuser pages: workspaces, users, OAuth clients and a backup download. The route
// table wraps each in the superuser check, superuserOnly.

var adminNotices = map[string]string{"created": "Workspace created; you are its admin.", "renamed": "Workspace renamed.",
	"archived": "Workspace archived.", "restored": "Workspace restored.", "deleted": "Client deleted, with its grants and their webhook subscriptions.",
	"grant": "Grant revoked, with its tokens and webhook subscriptions."}

func (h *Handler) adminWorkspacesView(r *http.Request) (views.AdminWorkspacesView, error) {
	v := views.AdminWorkspacesView{Notice: adminNotices[r.URL.Query().Get("done")]}
	all, err := h.store.Workspaces()
	if err != nil {
		return v, err
	}
	archived, err := h.store.ArchivedWorkspaces()
	if err != nil {
		return v, err
	}
	for _, ws := range all {
		ms, err := h.store.Members(ws.ID)
		if err != nil {
			return v, err
		}
		v.Rows = append(v.Rows, views.AdminWorkspaceRow{ID: ws.ID, Name: ws.Name, Created: fmtTime(ws.CreatedAt, ws.Location()),
			Members: len(ms), Archived: archived[ws.ID]})
	}
	return v, nil
}

// workspacesPage is /admin/workspaces, for the forms that post back to it.
func (h *Handler) workspacesPage(r *http.Request) formPage[views.AdminWorkspacesView] {
	return pageOf(h, "Workspaces", views.AdminWorkspaces, func() (views.AdminWorkspacesView, error) { return h.adminWorkspacesView(r) })
}

func (h *Handler) adminWorkspaces(w http.ResponseWriter, r *http.Request, u *ui) {
	h.workspacesPage(r).show(w, r, u, http.StatusOK, nil)
}

func (h *Handler) adminCreateWorkspace(w http.ResponseWriter, r *http.Request, u *ui) {
	if !h.readUIForm(w, r, u) {
		return
	}
	name := strings.TrimSpace(r.PostForm.Get("name"))
	_, err := h.store.CreateWorkspaceFor(name, u.user.ID)
	errs := fieldErrors(err, nil)
	h.workspacesPage(r).answer(w, r, u, errs, "/admin/workspaces?done=created", func(v *views.AdminWorkspacesView) {
		v.Name, v.Errors = name, errs
	})
}

func (h *Handler) adminRenameWorkspace(w http.ResponseWriter, r *http.Request, u *ui) {
	if !h.readUIForm(w, r, u) {
		return
	}
	id, name := r.PathValue("ws"), r.PostForm.Get("name")
	_, err := h.store.UpdateWorkspace(id, store.WorkspaceSettings{Name: &name})
	if errors.Is(err, store.ErrNotFound) {
		h.notFound(w, r, u, "such workspace")
		return
	}
	errs := fieldErrors(err, nil)
	h.workspacesPage(r).answer(w, r, u, errs, "/admin/workspaces?done=renamed", func(v *views.AdminWorkspacesView) {
		for i := range v.Rows {
			if v.Rows[i].ID == id {
				v.Rows[i].RenameError, v.Rows[i].NameTyped = firstError(errs), name
			}
		}
		v.Error = "The workspace was not renamed: " + firstError(errs)
	})
}

func (h *Handler) adminArchiveWorkspace(w http.ResponseWriter, r *http.Request, u *ui) {
	if !h.readUIForm(w, r, u) {
		return
	}
	archived := r.PostForm.Get("archived") == "true"
	if err := h.store.SetWorkspaceArchived(r.PathValue("ws"), archived); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			h.notFound(w, r, u, "such workspace")
			return
		}
		h.uiError(w, r, u, err)
		return
	}
	done := "restored"
	if archived {
		done = "archived"
	}
	http.Redirect(w, r, "/admin/workspaces?done="+done, http.StatusSeeOther)
}

func (h *Handler) adminUsers(w http.ResponseWriter, r *http.Request, u *ui) {
	h.usersPage(u).show(w, r, u, http.StatusOK, func(v *views.AdminUsersView) {
		v.Notice = adminUserNotices[r.URL.Query().Get("done")]
	})
}

// ---- OAuth clients ----

func (h *Handler) oauthView(r *http.Request, u *ui) (views.OAuthClientsView, error) {
	v := views.OAuthClientsView{Notice: adminNotices[r.URL.Query().Get("done")]}
	if h.cfg.OAuth == nil {
		v.Error = "This server runs without the OAuth provider."
		return v, nil
	}
	cs, err := h.cfg.OAuth.Clients()
	if err != nil {
		return v, err
	}
	loc := u.ws.Location()
	for _, c := range cs {
		kind := "confidential"
		if c.Public {
			kind = "public (PKCE)"
		}
		v.Rows = append(v.Rows, views.OAuthClientRow{ID: c.ID, Name: c.Name, Kind: kind, Public: c.Public,
			RedirectURIs: strings.Join(c.RedirectURIs, " "), Created: fmtTime(c.CreatedAt, loc)})
	}
	users, err := h.store.Users()
	if err != nil {
		return v, err
	}
	for _, usr := range users {
		gs, err := h.cfg.OAuth.Grants(usr.ID)
		if err != nil {
			return v, err
		}
		for _, g := range gs {
			v.Grants = append(v.Grants, views.GrantRow{ID: g.ID, Client: g.ClientName, User: pickName(usr),
				Created: fmtTime(g.CreatedAt, loc), LastUsed: fmtTime(g.LastUsedAt, loc)})
		}
	}
	sort.Slice(v.Grants, func(i, j int) bool { return v.Grants[i].ID > v.Grants[j].ID })
	return v, nil
}

// oauthPage is /admin/oauth-clients, for the forms that post back to it.
func (h *Handler) oauthPage(r *http.Request, u *ui) formPage[views.OAuthClientsView] {
	return pageOf(h, "OAuth clients", views.OAuthClients, func() (views.OAuthClientsView, error) { return h.oauthView(r, u) })
}

func (h *Handler) adminOAuthClients(w http.ResponseWriter, r *http.Request, u *ui) {
	h.oauthPage(r, u).show(w, r, u, http.StatusOK, nil)
}

// adminCreateClient answers with the page holding the secret (200): it is shown this once.
func (h *Handler) adminCreateClient(w http.ResponseWriter, r *http.Request, u *ui) {
	if !h.readUIForm(w, r, u) || h.cfg.OAuth == nil {
		if h.cfg.OAuth == nil {
			h.notFound(w, r, u, "OAuth provider")
		}
		return
	}
	in := oauth.NewClient{Name: r.PostForm.Get("name"), Public: r.PostForm.Get("public") == "true"}
	for _, line := range strings.Split(r.PostForm.Get("redirectUris"), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			in.RedirectURIs = append(in.RedirectURIs, line)
		}
	}
	c, secret, err := h.cfg.OAuth.CreateClient(in)
	if errs := fieldErrors(err, nil); errs != nil {
		h.oauthPage(r, u).show(w, r, u, http.StatusUnprocessableEntity, func(v *views.OAuthClientsView) {
			v.Name, v.URIs, v.Public, v.Errors = in.Name, r.PostForm.Get("redirectUris"), in.Public, errs
		})
		return
	}
	h.oauthPage(r, u).show(w, r, u, http.StatusOK, func(v *views.OAuthClientsView) {
		v.Secret, v.SecretFor = secret, c.Name
		if secret == "" {
			v.Notice = "Public client " + c.Name + " registered: it has no secret and must use PKCE (S256)."
		}
	})
}

func (h *Handler) adminRotateClient(w http.ResponseWriter, r *http.Request, u *ui) {
	if h.cfg.OAuth == nil {
		h.notFound(w, r, u, "OAuth provider")
		return
	}
	id := r.PathValue("client")
	secret, err := h.cfg.OAuth.RotateSecret(id)
	if err != nil {
		h.oauthError(w, r, u, err)
		return
	}
	h.oauthPage(r, u).show(w, r, u, http.StatusOK, func(v *views.OAuthClientsView) {
		v.Secret, v.SecretFor = secret, id
		for _, c := range v.Rows {
			if c.ID == id {
				v.SecretFor = c.Name
			}
		}
	})
}

func (h *Handler) adminDeleteClient(w http.ResponseWriter, r *http.Request, u *ui) {
	if h.cfg.OAuth == nil {
		h.notFound(w, r, u, "OAuth provider")
		return
	}
	if err := h.cfg.OAuth.DeleteClient(r.PathValue("client")); err != nil {
		h.oauthError(w, r, u, err)
		return
	}
	http.Redirect(w, r, "/admin/oauth-clients?done=deleted", http.StatusSeeOther)
}

func (h *Handler) adminRevokeGrant(w http.ResponseWriter, r *http.Request, u *ui) {
	if h.cfg.OAuth == nil {
		h.notFound(w, r, u, "OAuth provider")
		return
	}
	if err := h.cfg.OAuth.RevokeGrant(r.PathValue("grant")); err != nil {
		h.oauthError(w, r, u, err)
		return
	}
	http.Redirect(w, r, "/admin/oauth-clients?done=grant", http.StatusSeeOther)
}

func (h *Handler) oauthError(w http.ResponseWriter, r *http.Request, u *ui, err error) {
	if errors.Is(err, store.ErrNotFound) {
		h.notFound(w, r, u, "such client or grant")
		return
	}
	if !errors.Is(err, store.ErrConflict) {
		h.uiError(w, r, u, err)
		return
	}
	h.oauthPage(r, u).show(w, r, u, http.StatusConflict, func(v *views.OAuthClientsView) {
		v.Error = fieldErrors(err, nil)["form"]
	})
}

// ---- backup ----

func (h *Handler) adminBackup(w http.ResponseWriter, r *http.Request, u *ui) {
	h.render(w, r, u, http.StatusOK, "Backup", views.AdminBackup(h.adminBackupView(r, u)))
}

// adminBackupView lists the scheduled backups at -backup-url (a listing that fails is shown,
// not a 500: the download beside it still works) and the latest failure.
func (h *Handler) adminBackupView(r *http.Request, u *ui) views.AdminBackupView {
	var v views.AdminBackupView
	sched := h.cfg.Backups
	if sched == nil {
		return v
	}
	loc := u.ws.Location()
	v.Target, v.Every, v.Keep, v.Restore = sched.Target().String(), sched.Every().String(), strconv.Itoa(sched.Keep()), h.cfg.BackupRestore
	st := sched.Status()
	if st.Failing() {
		v.LastFailure = fmtTime(st.LastFailure, loc) + ": " + st.LastError
	} else if !st.LastFailure.IsZero() {
		v.PastFailure = fmtTime(st.LastFailure, loc) + ": " + st.LastError
	}
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	objs, err := sched.List(ctx)
	if err != nil {
		v.ListError = err.Error()
		return v
	}
	for _, o := range objs {
		v.Rows = append(v.Rows, views.AdminBackupRow{Name: o.Name, Taken: fmtTime(o.Time, loc), Size: humanBytes(o.Size)})
	}
	return v
}

// humanBytes shows a size the way file managers do: 1.5 MB (powers of 1000).
func humanBytes(n int64) string {
	const unit = 1000
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return strconv.FormatFloat(float64(n)/float64(div), 'f', 1, 64) + " " + string("kMGTPE"[exp]) + "B"
}

// adminBackupDownload streams store.Backup as an attachment to a signed-in superuser.
func (h *Handler) adminBackupDownload(w http.ResponseWriter, r *http.Request, u *ui) {
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="switchboard-`+h.now().UTC().Format("20060102-150405")+`.db"`)
	w.Header().Set("Cache-Control", "no-store")
	dw := &deadlineWriter{w: w, rc: http.NewResponseController(w)}
	if _, err := h.store.Backup(dw, func(size int64) {
		w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
	}); err != nil {
		slog.ErrorContext(r.Context(), "backup download failed", "request_id", requestID(r.Context()), "err", err)
	}
}
