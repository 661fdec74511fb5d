package web

import (
	"errors"
	"net/http"
	"strings"

	"switchboard/store"
	"switchboard/views"
)

// groupPageMembers is how many members a group's page lists.
const groupPageMembers = 200

// groups is GET /groups: the workspace's groups with their sizes.
func (h *Handler) groups(w http.ResponseWriter, r *http.Request, u *ui) {
	h.renderGroups(w, r, u, http.StatusOK, views.GroupsView{Notice: contactNotices[r.URL.Query().Get("done")]})
}

func (h *Handler) renderGroups(w http.ResponseWriter, r *http.Request, u *ui, status int, v views.GroupsView) {
	u.section = "groups"
	all, err := h.store.Groups(u.ws.ID)
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	for _, g := range all {
		v.Groups = append(v.Groups, views.GroupRow{ID: g.ID, Name: g.Name, Size: g.Size})
	}
	h.render(w, r, u, status, "Groups", views.Groups(v))
}

// groupCreate is POST /groups (name, unique in the workspace).
func (h *Handler) groupCreate(w http.ResponseWriter, r *http.Request, u *ui) {
	if !h.readUIForm(w, r, u) {
		return
	}
	name := strings.TrimSpace(r.PostForm.Get("name"))
	g, err := h.store.CreateGroup(u.ws.ID, name)
	if errs := groupErrors(err); errs != nil {
		h.renderGroups(w, r, u, http.StatusUnprocessableEntity, views.GroupsView{Name: name, Errors: errs})
		return
	}
	http.Redirect(w, r, "/groups/"+g.ID+"?done=group", http.StatusSeeOther)
}

// groupErrors is fieldErrors with a taken name beside the name field.
func groupErrors(err error) map[string]string {
	errs := fieldErrors(err, nil)
	if errors.Is(err, store.ErrConflict) {
		errs = map[string]string{"name": errs["form"]}
	}
	return errs
}

// groupOf finds the page's group in the current workspace; any other id is the 404 page.
func (h *Handler) groupOf(w http.ResponseWriter, r *http.Request, u *ui) (store.Group, bool) {
	u.section = "groups"
	g, err := h.store.Group(u.ws.ID, r.PathValue("group"))
	if errors.Is(err, store.ErrNotFound) {
		h.notFound(w, r, u, "such group")
		return g, false
	}
	if err != nil {
		h.uiError(w, r, u, err)
		return g, false
	}
	return g, true
}

func (h *Handler) renderGroup(w http.ResponseWriter, r *http.Request, u *ui, g store.Group, status int, edit func(*views.GroupView)) {
	v := views.GroupView{ID: g.ID, Name: g.Name, Size: g.Size, Rename: g.Name, Notice: contactNotices[r.URL.Query().Get("done")]}
	ids, err := h.store.GroupMemberIDsFirst(u.ws.ID, g.ID, groupPageMembers)
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	v.More = max(g.Size-len(ids), 0)
	for _, id := range ids {
		c, err := h.store.Contact(u.ws.ID, id)
		if err != nil {
			continue // deleted meanwhile
		}
		v.Members = append(v.Members, views.GroupMember{ID: c.ID, Name: contactName(&c), Phone: u.showPhone(c.Phone())})
	}
	if edit != nil {
		edit(&v)
	}
	h.render(w, r, u, status, g.Name, views.Group(v))
}

// group is GET /groups/{group}.
func (h *Handler) group(w http.ResponseWriter, r *http.Request, u *ui) {
	g, ok := h.groupOf(w, r, u)
	if !ok {
		return
	}
	h.renderGroup(w, r, u, g, http.StatusOK, nil)
}

// groupRename is POST /groups/{group}/rename.
func (h *Handler) groupRename(w http.ResponseWriter, r *http.Request, u *ui) {
	g, ok := h.groupOf(w, r, u)
	if !ok || !h.readUIForm(w, r, u) {
		return
	}
	name := strings.TrimSpace(r.PostForm.Get("name"))
	_, err := h.store.RenameGroup(u.ws.ID, g.ID, name)
	if errs := groupErrors(err); errs != nil {
		h.renderGroup(w, r, u, g, http.StatusUnprocessableEntity, func(v *views.GroupView) {
			v.Rename, v.Errors, v.Error = name, errs, "Not renamed: see the form."
		})
		return
	}
	http.Redirect(w, r, "/groups/"+g.ID+"?done=renamed", http.StatusSeeOther)
}

// groupDelete is POST /groups/{group}/delete; it needs confirm=yes (the "Yes, delete" box).
func (h *Handler) groupDelete(w http.ResponseWriter, r *http.Request, u *ui) {
	g, ok := h.groupOf(w, r, u)
	if !ok || !h.readUIForm(w, r, u) {
		return
	}
	if r.PostForm.Get("confirm") != "yes" {
		h.renderGroup(w, r, u, g, http.StatusUnprocessableEntity, func(v *views.GroupView) {
			v.Errors = map[string]string{"confirm": "Tick the box to confirm the deletion"}
			v.Error = "Not deleted: confirm it first."
		})
		return
	}
	if err := h.store.DeleteGroup(u.ws.ID, g.ID); err != nil {
		h.uiError(w, r, u, err)
		return
	}
	http.Redirect(w, r, "/groups?done=deleted", http.StatusSeeOther)
}

// groupMemberAdd is POST /groups/{group}/members (phone); a number without a contact gets an
// unnamed one, as add-to-group does.
func (h *Handler) groupMemberAdd(w http.ResponseWriter, r *http.Request, u *ui) {
	g, ok := h.groupOf(w, r, u)
	if !ok || !h.readUIForm(w, r, u) {
		return
	}
	phone := strings.TrimSpace(r.PostForm.Get("phone"))
	e164, err := u.readPhone("phone", phone)
	if err == nil {
		_, _, err = h.store.AddToGroup(u.ws.ID, g.Name, e164)
	}
	if errs := fieldErrors(err, map[string]string{"group": "form"}); errs != nil {
		h.renderGroup(w, r, u, g, http.StatusUnprocessableEntity, func(v *views.GroupView) {
			v.Phone, v.Errors, v.Error = phone, errs, "Not added: "+firstError(errs)
		})
		return
	}
	http.Redirect(w, r, "/groups/"+g.ID+"?done=added", http.StatusSeeOther)
}

// groupMemberRemove is POST /groups/{group}/members/remove (contact: a contact id).
func (h *Handler) groupMemberRemove(w http.ResponseWriter, r *http.Request, u *ui) {
	g, ok := h.groupOf(w, r, u)
	if !ok || !h.readUIForm(w, r, u) {
		return
	}
	if _, err := h.store.RemoveFromGroup(u.ws.ID, g.ID, r.PostForm.Get("contact")); err != nil && !errors.Is(err, store.ErrNotFound) {
		h.uiError(w, r, u, err)
		return
	}
	http.Redirect(w, r, "/groups/"+g.ID+"?done=removed", http.StatusSeeOther)
}
