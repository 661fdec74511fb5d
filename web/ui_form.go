package web

import (
	"net/http"

	"github.com/a-h/templ"
)

// formPage is a page that forms post back to: its title, how its view model loads for the
// request, and the component that renders it. A form handler validates into that view model
// and either shows the page again with the errors (422) or redirects (303).
type formPage[V any] struct {
	h     *Handler
	title string
	load  func() (V, error)
	page  func(V) templ.Component
}

// pageOf names a page for the form handlers that post back to it.
func pageOf[V any](h *Handler, title string, page func(V) templ.Component, load func() (V, error)) formPage[V] {
	return formPage[V]{h: h, title: title, load: load, page: page}
}

// show loads the page's view model, lets fill put in it what this answer adds (the form as
// typed and its errors, a refusal, a secret shown once) and renders it with status. A view
// model that does not load is answered as an error page, never a half-filled form.
func (p formPage[V]) show(w http.ResponseWriter, r *http.Request, u *ui, status int, fill func(*V)) {
	v, err := p.load()
	if err != nil {
		p.h.uiError(w, r, u, err)
		return
	}
	if fill != nil {
		fill(&v)
	}
	p.h.render(w, r, u, status, p.title, p.page(v))
}

// answer ends a form post: with errs, the page again with fill's form as typed and the
// errors (422); without, a redirect to done (303), so a reload does not post twice.
func (p formPage[V]) answer(w http.ResponseWriter, r *http.Request, u *ui, errs map[string]string, done string, fill func(*V)) {
	if len(errs) > 0 {
		p.show(w, r, u, http.StatusUnprocessableEntity, fill)
		return
	}
	http.Redirect(w, r, done, http.StatusSeeOther)
}
