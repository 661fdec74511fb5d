package web

import (
	"bytes"
	"net/http"
	"strings"

	"github.com/a-h/templ"

	"switchboard/views"
)

// statusPages answers the requests that no route takes — an unknown path (404) or a method the
// path does not take (405) — with the product's own HTML page (a heading, the layout, a link
// home) instead of the standard library's line of text. The API keeps its JSON errors (its
// catch-all route answers them before this), and the machine endpoints — the OAuth token and
// revocation endpoints, the OAuth metadata and other /.well-known documents, the OpenAPI
// document, the carrier callbacks, health and metrics, static files, the push stream and media
// files — keep the plain answers their callers parse.
func (h *Handler) statusPages(mux *http.ServeMux) http.Handler {
	// Every path under the API's stage has a route (its catch-all answers JSON), so the mux is
	// asked once, not twice, for those.
	api := "/" + h.cfg.Stage + "/"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, api) {
			mux.ServeHTTP(w, r)
			return
		}
		if _, pattern := mux.Handler(r); pattern != "" || machinePath(r.URL.Path) {
			mux.ServeHTTP(w, r)
			return
		}
		// No pattern matched: the mux would answer 404, 405 (with Allow) or a redirect to the
		// cleaned path. Record its answer and keep everything but the plain-text 404 and 405.
		rec := &muxAnswer{header: http.Header{}}
		mux.ServeHTTP(rec, r)
		if rec.status != http.StatusNotFound && rec.status != http.StatusMethodNotAllowed {
			for k, v := range rec.header {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.status)
			_, _ = w.Write(rec.body.Bytes())
			return
		}
		heading, text := "Page not found", "There is no page at "+r.URL.Path+". Check the address, or start again from the home page."
		if rec.status == http.StatusMethodNotAllowed {
			w.Header().Set("Allow", rec.header.Get("Allow"))
			heading, text = "Method not allowed", "This page does not take a "+r.Method+" request. Open it from a link or a form of Switchboard instead."
		}
		page := views.StatusPage(heading, text, "/", "Go to the home page")
		if ss := h.cfg.Sessions; ss != nil && r.Method != http.MethodHead {
			if _, ok := ss.CurrentUser(r); ok {
				// Signed in: the page comes in the app frame, with the navigation.
				h.page(roleSignedIn, func(w http.ResponseWriter, r *http.Request, u *ui) {
					u.section = ""
					h.render(w, r, u, rec.status, heading, page)
				}).ServeHTTP(w, r)
				return
			}
		}
		setPageHeaders(w)
		templ.Handler(views.Layout(heading, page), templ.WithStatus(rec.status)).ServeHTTP(w, r)
	})
}

// machinePath reports whether path belongs to a caller that is not a person with a browser.
func machinePath(path string) bool {
	for _, p := range []string{"/oauth/token", "/oauth/revoke", "/carrier/", "/healthz", "/readyz", "/metrics", "/static/",
		"/.well-known/", "/openapi.json", "/events", "/media/", "/cluster/"} {
		if path == p || strings.HasPrefix(path, p) && strings.HasSuffix(p, "/") {
			return true
		}
	}
	return false
}

// muxAnswer keeps the mux's answer to a request no route took, to be replayed or replaced.
type muxAnswer struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (s *muxAnswer) Header() http.Header { return s.header }

func (s *muxAnswer) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
}

func (s *muxAnswer) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.body.Write(b)
}
