package web

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"net/http"

	"switchboard/views"
)

// The installable app: the manifest, the service worker and its offline page. The worker's
// cache is named after the build's asset version, a hash of every static file, so a new build
// installs a new worker with a new cache; pages load their files as /static/…?v=version
// (views.Asset), which is what the worker caches.

// pwaFiles is what the build's static files make of the service worker.
type pwaFiles struct {
	version string // the asset version: 12 hex digits of the static files' hash
	worker  []byte // /sw.js: static/service-worker.js with the version and its files filled in
}

// precached are the files the service worker keeps for a page to load offline, as versioned
// URLs: the offline page's own and those of every signed-in page's head.
var precached = []string{"/static/app.css", "/static/favicon.svg", "/static/pwa.js", "/static/htmx.min.js", "/static/app.js",
	"/static/inbox-tools.js", "/static/live.js", "/static/push.js", "/static/icon-192.png", "/static/apple-touch-icon.png"}

// offlinePath is the offline page's URL, cached by the worker at its install.
const offlinePath = "/offline"

// newPWAFiles hashes the static files and fills the service worker's template; with no static
// files (tests of the API alone) there is no worker.
func newPWAFiles(static fs.FS) (pwaFiles, error) {
	if static == nil {
		return pwaFiles{}, nil
	}
	h := sha256.New()
	err := fs.WalkDir(static, "static", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(static, path)
		if err != nil {
			return err
		}
		h.Write([]byte(path + "\x00"))
		h.Write(data)
		return nil
	})
	if err != nil {
		return pwaFiles{}, err
	}
	p := pwaFiles{version: hex.EncodeToString(h.Sum(nil))[:12]}
	tmpl, err := fs.ReadFile(static, "static/service-worker.js")
	if err != nil {
		return p, nil // no worker: the pages still load their versioned files
	}
	urls := []string{offlinePath}
	for _, f := range precached {
		urls = append(urls, f+"?v="+p.version)
	}
	list, err := json.Marshal(urls)
	if err != nil {
		return pwaFiles{}, err
	}
	version, _ := json.Marshal(p.version)
	p.worker = bytes.ReplaceAll(tmpl, []byte(`"__VERSION__"`), version)
	p.worker = bytes.ReplaceAll(p.worker, []byte(`["__PRECACHE__"]`), list)
	return p, nil
}

// withAssetVersion gives every request's context the asset version the pages' file URLs carry.
func (h *Handler) withAssetVersion(next http.Handler) http.Handler {
	if h.pwa.version == "" {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(views.WithAssetVersion(r.Context(), h.pwa.version)))
	})
}

// manifest is the web app manifest, as /manifest.webmanifest serves it.
type manifest struct {
	ID              string         `json:"id"`
	Name            string         `json:"name"`
	ShortName       string         `json:"short_name"`
	Description     string         `json:"description"`
	StartURL        string         `json:"start_url"`
	Scope           string         `json:"scope"`
	Display         string         `json:"display"`
	ThemeColor      string         `json:"theme_color"`
	BackgroundColor string         `json:"background_color"`
	Icons           []manifestIcon `json:"icons"`
}

type manifestIcon struct {
	Src     string `json:"src"`
	Sizes   string `json:"sizes"`
	Type    string `json:"type"`
	Purpose string `json:"purpose"`
}

var appManifest = manifest{
	ID: "/", Name: "Switchboard", ShortName: "Switchboard", Description: "Your team's business texting inbox.",
	StartURL: "/inbox", Scope: "/", Display: "standalone", ThemeColor: "#1d2430", BackgroundColor: "#f4f6f9",
	Icons: []manifestIcon{
		{Src: "/static/icon-192.png", Sizes: "192x192", Type: "image/png", Purpose: "any"},
		{Src: "/static/icon-512.png", Sizes: "512x512", Type: "image/png", Purpose: "any"},
		{Src: "/static/icon-maskable-512.png", Sizes: "512x512", Type: "image/png", Purpose: "maskable"},
	},
}
