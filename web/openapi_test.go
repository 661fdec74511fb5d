package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"switchboard/internal/testutil"
)

// The OpenAPI document (../openapi.json, embedded by the main package and served at
// /openapi.json) is the contract every API test is held to: env.do passes each request and
// response through contract.check.

const openAPIPath = "../openapi.json"

// docPrefix is where the document puts every action: the default stage and provider.
const docPrefix = "/v1/integrations/developer/zapier/"

var spec struct {
	once sync.Once
	raw  []byte
	doc  *openapi3.T
	err  error
}

// loadSpec loads and validates the document once per test binary.
func loadSpec(t testing.TB) (*openapi3.T, []byte) {
	t.Helper()
	spec.once.Do(func() {
		// kin-openapi takes any string as format "uri" unless told what one is.
		openapi3.DefineStringFormatValidator("uri", openapi3.NewCallbackValidator(testutil.CheckURI))
		spec.raw, spec.err = os.ReadFile(openAPIPath)
		if spec.err != nil {
			return
		}
		loader := openapi3.NewLoader()
		spec.doc, spec.err = loader.LoadFromData(spec.raw)
		if spec.err != nil {
			spec.err = fmt.Errorf("load: %w", spec.err)
			return
		}
		if err := spec.doc.Validate(context.Background()); err != nil {
			spec.err = fmt.Errorf("validate: %w", err)
		}
	})
	if spec.err != nil {
		t.Fatalf("OpenAPI document %s: %v", openAPIPath, spec.err)
	}
	return spec.doc, spec.raw
}

// contract validates one env's traffic against the document.
type contract struct {
	doc    *openapi3.T
	router routers.Router
	stage  string
}

func newContract(t testing.TB, cfg Config, serverURL string) *contract {
	t.Helper()
	doc, raw := loadSpec(t)
	stage, provider := cfg.Stage, cfg.Provider
	if stage == "" {
		stage = defaultStage
	}
	if provider == "" {
		provider = defaultProvider
	}
	// A server with another stage or provider is held to the document it serves.
	if stage != defaultStage || provider != defaultProvider {
		var err error
		if doc, err = openapi3.NewLoader().LoadFromData(localizeOpenAPI(raw, stage, provider)); err != nil {
			t.Fatalf("OpenAPI document for stage %s, provider %s: %v", stage, provider, err)
		}
	}
	// The router matches on the test server's address: a copy of the document with that server.
	d := *doc
	d.Servers = openapi3.Servers{{URL: serverURL}}
	router, err := gorillamux.NewRouter(&d)
	if err != nil {
		t.Fatalf("OpenAPI router: %v", err)
	}
	return &contract{doc: doc, router: router, stage: stage}
}

// check validates a request and its response. The response is always validated: a documented
// operation's by openapi3filter (status, headers, body), any other answer under the API's
// prefix against the error shapes. The request is validated only when the server accepted it
// (2xx): tests send broken bodies on purpose, and the server must refuse those with a
// documented 400; a 2xx to a request the document calls invalid means one of them is wrong.
func (c *contract) check(t testing.TB, method, rawURL string, header map[string]string, body []byte, r resp) {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		return
	}
	if !strings.HasPrefix(u.Path, "/"+c.stage+"/") {
		return // not the integration API: health, metrics, carrier callbacks, OAuth, pages
	}
	req, err := http.NewRequest(method, rawURL, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	// The server also takes structured-syntax JSON types (application/vnd.api+json), which the
	// document mentions in words: OpenAPI media ranges cannot say "any +json". Their bodies are
	// held to the application/json schema.
	if ct := req.Header.Get("Content-Type"); ct != "" && isJSON(ct) {
		req.Header.Set("Content-Type", "application/json")
	}
	route, params, err := c.router.FindRoute(req)
	if err != nil {
		// Not a documented operation: an unknown provider or action, another method (405).
		c.checkUndocumented(t, method, rawURL, r)
		return
	}
	ctx := context.Background()
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true}}
	if r.status/100 == 2 {
		if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
			t.Errorf("OpenAPI: %s %s answered %d, but the document says the request is invalid: %v\nrequest body: %s",
				method, rawURL, r.status, err, body)
		}
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: r.status, Header: r.header,
		Body:    io.NopCloser(bytes.NewReader(r.raw)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}}
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		t.Errorf("OpenAPI: %s %s answered %d, which the document does not allow: %v\nresponse body: %s",
			method, rawURL, r.status, err, r.raw)
	}
}

// checkUndocumented holds answers outside the documented operations to the document's error
// shapes: every such answer under the API's prefix is an error, {"error": …}.
func (c *contract) checkUndocumented(t testing.TB, method, rawURL string, r resp) {
	t.Helper()
	if r.status < 400 {
		t.Errorf("OpenAPI: %s %s is no documented operation but answered %d", method, rawURL, r.status)
		return
	}
	name := "Error"
	if r.status == http.StatusBadRequest {
		name = "ValidationErrors"
	}
	if err := c.validateSchema(name, r.raw); err != nil {
		t.Errorf("OpenAPI: %s %s answered %d with a body that is no %s: %v\nresponse body: %s", method, rawURL, r.status, name, err, r.raw)
	}
}

// validateSchema validates a JSON body against a schema of the document's components.
func (c *contract) validateSchema(name string, raw []byte) error {
	ref := c.doc.Components.Schemas[name]
	if ref == nil {
		return fmt.Errorf("the document has no schema %s", name)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	return ref.Value.VisitJSON(v, openapi3.EnableJSONSchema2020(), openapi3.MultiErrors())
}

// documentedActions returns the action names of the document's paths; any other path fails.
func documentedActions(t *testing.T, doc *openapi3.T) []string {
	t.Helper()
	var names []string
	for path, item := range doc.Paths.Map() {
		name, ok := strings.CutPrefix(path, docPrefix)
		if !ok || name == "" || strings.Contains(name, "/") {
			t.Errorf("document path %q is not %s<action>", path, docPrefix)
			continue
		}
		if item.Post == nil || len(item.Operations()) != 1 {
			t.Errorf("document path %q: want exactly one operation, POST", path)
		}
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
