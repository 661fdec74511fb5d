package web

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"switchboard/store"
)

// The document's ecosystem properties, which API tools and linters rely on: servers, a licence,
// tags on every operation (each one declared), items on every array schema, and a mediaUrl
// pattern that is the server's own rule. (make test also lints it with Redocly and Spectral.)
func TestOpenAPIDocumentForTools(t *testing.T) {
	_, raw := loadSpec(t)
	var d map[string]any
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	if s, _ := d["servers"].([]any); len(s) != 1 || dig(s[0], "url") != "/" {
		t.Errorf("servers = %v, want the one relative server /", d["servers"])
	}
	if name, _ := dig(d, "info", "license", "name").(string); name == "" {
		t.Error("info.license.name is missing")
	}
	declared := map[string]bool{}
	for _, tg := range d["tags"].([]any) {
		declared[dig(tg, "name").(string)] = true
	}
	ops := 0
	for _, section := range []string{"paths", "webhooks"} {
		for name, item := range d[section].(map[string]any) {
			for method, op := range item.(map[string]any) {
				ops++
				tags, _ := dig(op, "tags").([]any)
				if len(tags) == 0 {
					t.Errorf("%s %s %s has no tags", section, method, name)
				}
				for _, tg := range tags {
					if !declared[tg.(string)] {
						t.Errorf("%s %s %s: tag %v is not declared in tags", section, method, name, tg)
					}
				}
			}
		}
	}
	if ops < 18 {
		t.Fatalf("found %d operations, want every action and event", ops)
	}
	mediaURLs := 0
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			if typ := x["type"]; typ == "array" || (isList(typ) && slices.Contains(typ.([]any), any("array"))) {
				if _, ok := x["items"]; !ok {
					t.Errorf("%s: an array schema without items", path)
				}
			}
			if m, ok := x["mediaUrl"].(map[string]any); ok {
				if p, ok := m["pattern"]; ok {
					mediaURLs++
					if p != "^$|"+store.MediaURLPattern || m["maxLength"] != float64(store.MaxMediaURL) {
						t.Errorf("%s.mediaUrl: pattern %v maxLength %v, want ^$| and the server's rule %s, %d", path, p, m["maxLength"], store.MediaURLPattern, store.MaxMediaURL)
					}
				}
			}
			for k, c := range x {
				walk(path+"."+k, c)
			}
		case []any:
			for _, c := range x {
				walk(path+"[]", c)
			}
		}
	}
	walk("#", d)
	if mediaURLs < 4 {
		t.Errorf("found %d mediaUrl properties with a pattern, want one on every send", mediaURLs)
	}
}

func isList(v any) bool { _, ok := v.([]any); return ok }

// TestOpenAPIServedWithPublicURL: an installation with a public URL serves the document with
// that URL as its server; without one, the document keeps "/".
func TestOpenAPIServedWithPublicURL(t *testing.T) {
	_, raw := loadSpec(t)
	for _, c := range []struct{ server, want string }{{"https://text.example.com", "https://text.example.com"}, {"", "/"}} {
		e := newEnv(t, Config{OpenAPI: raw, APIServer: c.server, Stage: "v2"})
		r := e.do(t, http.MethodGet, e.srv.URL+"/openapi.json", nil, nil)
		var d map[string]any
		if err := json.Unmarshal(r.raw, &d); err != nil || r.status != http.StatusOK {
			t.Fatalf("GET /openapi.json: %d %v", r.status, err)
		}
		if s, _ := d["servers"].([]any); len(s) != 1 || dig(s[0], "url") != c.want {
			t.Errorf("APIServer %q: served servers %v, want %s", c.server, d["servers"], c.want)
		}
		if _, ok := dig(d, "paths").(map[string]any)["/v2/integrations/developer/zapier/me-action"]; !ok {
			t.Errorf("APIServer %q: the served paths lost the stage", c.server)
		}
	}
}
