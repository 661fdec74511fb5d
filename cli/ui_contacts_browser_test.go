package cli

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"switchboard/internal/testutil"
	"switchboard/store"
)

// TestBrowserContactsData drives the contacts data pages in headless Chromium: upload a CSV with
// national numbers and a bad row, map it (the guesses hold), see the preview, start, watch the
// progress reach done by itself, fetch the error CSV; then on /contacts tick two rows and add
// them to a group; then export and read the file back. Screenshots at desktop and phone widths
// go where TestBrowserFirstRun's go.
func TestBrowserContactsData(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	chrome := testutil.Chromium(t)
	data := t.TempDir()
	st, err := store.Open(filepath.Join(data, "switchboard.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ws, err := st.CreateWorkspace("Acme Dental")
	var user store.User
	if err == nil {
		user, err = st.CreateUser(store.NewUser{Email: "dana@acme.example", Name: "Dana Admin", Password: "correct horse battery"})
	}
	if err == nil {
		_, err = st.AddMember(ws.ID, user.ID, "admin")
	}
	if err == nil {
		_, err = st.AddProperty(ws.ID, "plan", store.PropertyText)
	}
	if err == nil {
		_, err = st.CreateGroup(ws.ID, "Recall")
	}
	if err != nil {
		t.Fatalf("set up: %v", err)
	}
	st.Close()
	file := filepath.Join(t.TempDir(), "patients.csv")
	os.WriteFile(file, []byte("First name;Last name;Mobile;Plan;Notes\nAna;Lima;(415) 555-0123;gold;first visit\n"+
		"Bo;Chen;415-555-0124;;\nCy;Dorn;12;silver;\nDee;Eze;+442071234567;;\n"), 0o600)
	addr := "127.0.0.1:" + testutil.FreePort(t)
	srv := startServer(t, addr, nil, "-addr", addr, "-data="+data, "-log-requests=false")

	b := openBrowser(t, chrome, 2*time.Minute, nil)
	fetch := func(path string) string {
		t.Helper()
		s, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`fetch(`+"`"+path+"`"+`).then(r => r.text())`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("fetch %s: %v", path, err)
		}
		return s
	}
	b.signIn(srv.base+"/contacts/import", "dana@acme.example", "correct horse battery", testutil.TestID("import-upload-form"))
	b.shot("d01-import-upload")
	b.run("upload",
		chromedp.SetUploadFiles(testutil.TestID("import-file"), []string{file}),
		chromedp.Click(testutil.TestID("import-upload-submit")),
		chromedp.WaitVisible(testutil.TestID("import-preview")),
	)
	if got := b.text(testutil.TestID("import-summary")); !strings.Contains(got, "4 rows") || !strings.Contains(got, "semicolons") {
		t.Errorf("mapping summary %q, want 4 rows separated by semicolons", got)
	}
	preview := b.text(testutil.TestID("import-preview"))
	for _, want := range []string{"(415) 555-0123", "(415) 555-0124", "+44 20 7123 4567", "Skipped: phone", "gold"} {
		if !strings.Contains(preview, want) {
			t.Errorf("the preview lacks %q:\n%s", want, preview)
		}
	}
	b.shot("d02-import-mapping")
	b.shotPhone("d02-import-mapping-phone")
	b.run("start and watch it finish",
		chromedp.Click(testutil.TestID("import-start")),
		poll(`document.querySelector('[data-testid="import-progress"]')?.dataset.status === "done"`, nil, chromedp.WithPollingTimeout(20*time.Second)),
	)
	if c, s := b.text(testutil.TestID("import-created")), b.text(testutil.TestID("import-skipped")); c != "3" || s != "1" {
		t.Errorf("created %s, skipped %s; want 3 and 1", c, s)
	}
	b.shot("d03-import-done")
	href, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="import-errors-link"]').getAttribute("href")`))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(fetch(href))).ReadAll()
	if err != nil || len(rows) != 2 || rows[0][0] != "row" || rows[1][0] != "3" || rows[1][1] != "Mobile" {
		t.Errorf("error CSV %q (%v), want the header and row 3, column Mobile", rows, err)
	}

	b.run("bulk add two ticked rows to a group",
		chromedp.Navigate(srv.base+"/contacts?sort=newest"),
		chromedp.WaitVisible(testutil.TestID("contacts-list")),
		chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('[data-testid="contact-select"]').forEach((b, i) => { if (i < 2) b.click() })`),
		chromedp.SetValue(testutil.TestID("bulk-action"), "add"),
		chromedp.Click(testutil.TestID("bulk-submit")),
		poll(`document.querySelector('[data-testid="flash"]')?.textContent.includes("Added 2 contacts")`, nil, chromedp.WithPollingTimeout(10*time.Second)),
	)
	if got := b.text(testutil.TestID("contacts-count")); !strings.HasPrefix(got, "3 contacts") {
		t.Errorf("count %q, want 3 contacts", got)
	}
	b.shot("d04-contacts-bulk")
	b.shotPhone("d04-contacts-phone")
	b.run("filter by the group", chromedp.Navigate(srv.base+"/contacts"), chromedp.WaitVisible(testutil.TestID("filter-group")))
	gid, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector('#filter-group option:nth-child(2)').value`))
	if err != nil {
		t.Fatal(err)
	}
	exported := fetch("/contacts/export?group=" + gid)
	rows, err = csv.NewReader(strings.NewReader(exported)).ReadAll()
	if err != nil || len(rows) != 3 || strings.Join(rows[0][:4], ",") != "id,firstName,lastName,phone" || rows[1][7] != "Recall" {
		t.Errorf("export of the group %q (%v), want the header and 2 rows in Recall", rows, err)
	}
}
