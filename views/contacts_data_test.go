package views

import "testing"

// The contacts data pages keep the house rules: labelled controls, one <h1>, results in a
// status or alert element.
func TestContactsDataPages(t *testing.T) {
	html := render(t, ImportUpload(ImportUploadView{Error: "The file is empty.", Jobs: []ImportJobView{{ID: "j1", FileName: "a.csv", Status: "done", Total: 3, Done: 3}}}))
	labelled(t, html)
	expect(t, html, `<label for="import-file">`, `enctype="multipart/form-data"`, `role="alert"`, `href="/contacts/import/jobs/j1"`)

	html = render(t, ImportMapping(ImportMappingView{ID: "j1", FileName: "a.csv", Delimiter: ";", Total: 2,
		Columns: []ImportColumn{{0, "Mobile", "phone"}, {1, "Notes", "ignore"}}, Targets: []Option{{"phone", "phone"}, {"ignore", "Ignore"}},
		Header: []string{"phone"}, Preview: []ImportPreviewRow{{Row: 1, Cells: []string{"+14155550123"}}, {Row: 2, Cells: []string{"12"}, Problem: "phone: bad"}}, CanStart: true}))
	labelled(t, html)
	expect(t, html, "semicolons", `<label for="col-0">Mobile</label>`, `<option value="phone" selected>`, "Skipped: phone: bad", `data-testid="import-start"`)

	html = render(t, ImportProgressPage(ImportJobView{ID: "j1", FileName: "a.csv", Status: "running", Total: 10, Done: 4, Created: 3, Skipped: 1}))
	labelled(t, html)
	expect(t, html, `hx-get="/contacts/import/jobs/j1/progress"`, `role="status"`, "4 of 10 rows done")

	html = render(t, ContactDeleteConfirm(ContactDeleteView{ID: "c1", Phone: "+14155550123", Erase: true}))
	labelled(t, html)
	expect(t, html, "Erase +14155550123?", `name="erase" value="yes"`, `name="confirm" value="yes"`, `role="alert"`)
}
