package web

import (
	"bytes"
	"encoding/csv"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"switchboard/store"
)

// upload posts file as the import's multipart form.
func (e *uiEnv) upload(t *testing.T, c *http.Client, name string, file []byte) (*http.Response, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("file", name)
	fw.Write(file)
	mw.Close()
	req, _ := http.NewRequest("POST", e.srv.URL+"/contacts/import", &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// The browser import: a semicolon file with a BOM and national numbers is mapped by its
// headers, previewed, imported in the background; an existing contact is updated only in the
// mapped non-empty fields and stays opted out; bad rows land in the error CSV.
func TestUIContactImport(t *testing.T) {
	e := newUIEnv(t)
	if _, err := e.st.AddProperty(e.a.ID, "plan", store.PropertyText); err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.CreateContact(e.a.ID, store.ContactInput{Phone: "+14155550111", FirstName: ptr("Old"), LastName: ptr("Keep")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.st.CreateOptOut(e.a.ID, "", "+14155550111", store.OptOutKeyword); err != nil {
		t.Fatal(err)
	}
	c := e.signIn(t, e.mo)
	file := "\xef\xbb\xbfFirst Name;Surname;Mobile;Plan;Notes\n" +
		"Ana;Lima;(415) 555-0123;gold;x\n" +
		"New;;415-555-0111;;\n" +
		"Bad;Row;12;;\n" +
		"\"Multi\nline\";X;+442071234567;silver;\n"
	res, _ := e.upload(t, c, "people.csv", []byte(file))
	loc := wantRedirect(t, res, "/contacts/import/jobs/")
	res, body := e.send(t, c, "GET", loc, nil)
	wantPage(t, "the mapping page", res, body, http.StatusOK, "4 rows", "semicolons",
		`<option value="firstName" selected`, `<option value="lastName" selected`, `<option value="phone" selected`,
		`<option value="property:plan" selected`, `data-testid="import-preview"`, "+14155550123", "Skipped: phone:", `data-testid="import-start"`)

	form := url.Values{"col.0": {"firstName"}, "col.1": {"lastName"}, "col.2": {"ignore"}, "col.3": {"property:plan"}, "col.4": {"ignore"}, "action": {"start"}}
	res, body = e.send(t, c, "POST", loc, form)
	wantPage(t, "start without a phone column", res, body, http.StatusUnprocessableEntity, "Map one column to phone")

	form.Set("col.2", "phone")
	res, _ = e.send(t, c, "POST", loc, form)
	wantRedirect(t, res, loc)
	id := strings.TrimPrefix(loc, "/contacts/import/jobs/")
	deadline := time.Now().Add(10 * time.Second)
	var j store.ImportJob
	for {
		var err error
		if j, err = e.st.ImportJobByID(e.a.ID, id); err != nil {
			t.Fatal(err)
		}
		if j.Status != store.ImportRunning || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if j.Status != store.ImportDone || j.Total != 4 || j.Done != 4 || j.Created != 2 || j.Updated != 1 || j.Skipped != 1 {
		t.Fatalf("job %+v, want done 4 of 4: 2 created, 1 updated, 1 skipped", j)
	}
	res, body = e.send(t, c, "GET", loc+"/progress", nil)
	wantPage(t, "the progress fragment", res, body, http.StatusOK, `data-status="done"`, "4 of 4", `data-testid="import-errors-link"`)

	old, _ := e.st.ContactByPhone(e.a.ID, "+14155550111")
	if old.FirstName != "New" || old.LastName != "Keep" {
		t.Errorf("updated contact %q %q, want New Keep (an empty cell changes nothing)", old.FirstName, old.LastName)
	}
	if out, _ := e.st.IsOptedOut(e.a.ID, "+14155550111"); !out {
		t.Error("the import lifted an opt-out")
	}
	multi, err := e.st.ContactByPhone(e.a.ID, "+442071234567")
	if err != nil || multi.FirstName != "Multi line" || multi.Properties["plan"] != "silver" {
		t.Errorf("the multi-line row: %+v %v", multi, err)
	}
	res, body = e.send(t, c, "GET", loc+"/errors.csv", nil)
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if res.StatusCode != http.StatusOK || err != nil || len(rows) != 2 || rows[1][0] != "3" || rows[1][1] != "Mobile" || !strings.Contains(rows[1][2], "must be a phone number") {
		t.Errorf("error CSV %d %q %v, want row 3, column Mobile, a phone message", res.StatusCode, rows, err)
	}
}

// Bad files are refused with a clear message and leave no job behind.
func TestUIContactImportRefusesBadFiles(t *testing.T) {
	e := newUIEnv(t)
	c := e.signIn(t, e.mo)
	for name, tc := range map[string]struct {
		file, want string
	}{
		"empty":       {"", "The file is empty"},
		"binary":      {"PK\x03\x04\x00\x00\x00", "not CSV"},
		"latin-1":     {"name,phone\nJos\xe9,+14155550123\n", "not UTF-8"},
		"late latin1": {"name,phone\n" + strings.Repeat("a,+1\n", 20000) + "Jos\xe9,+14155550123\n", "not UTF-8"},
		"header only": {"name,phone\n", "no rows"},
	} {
		res, body := e.upload(t, c, name+".csv", []byte(tc.file))
		wantPage(t, name, res, body, http.StatusUnprocessableEntity, tc.want, `role="alert"`)
	}
	if jobs, _ := e.st.ImportJobs(e.a.ID, 10); len(jobs) != 0 {
		t.Errorf("%d jobs left by refused files", len(jobs))
	}
}
