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

// A file of many bad rows: the error file lists the first maxErrorRows and counts the rest in
// one last line, so it cannot grow past the upload; the job still counts every skipped row.
func TestUIContactImportErrorFileIsBounded(t *testing.T) {
	defer func(n int) { maxErrorRows = n }(maxErrorRows)
	maxErrorRows = 5
	e := newUIEnv(t)
	c := e.signIn(t, e.mo)
	file := "phone,firstName\n+14155550123,Ana\n" + strings.Repeat("12,Bad\n", 40)
	res, _ := e.upload(t, c, "bad.csv", []byte(file))
	loc := wantRedirect(t, res, "/contacts/import/jobs/")
	res, _ = e.send(t, c, "POST", loc, url.Values{"col.0": {"phone"}, "col.1": {"firstName"}, "action": {"start"}})
	wantRedirect(t, res, loc)
	id := strings.TrimPrefix(loc, "/contacts/import/jobs/")
	var j store.ImportJob
	for deadline := time.Now().Add(10 * time.Second); ; {
		var err error
		if j, err = e.st.ImportJobByID(e.a.ID, id); err != nil {
			t.Fatal(err)
		}
		if j.Status != store.ImportRunning || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if j.Status != store.ImportDone || j.Created != 1 || j.Skipped != 40 {
		t.Fatalf("job %+v, want done: 1 created, 40 skipped", j)
	}
	res, body := e.send(t, c, "GET", loc+"/errors.csv", nil)
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if res.StatusCode != http.StatusOK || err != nil || len(rows) != 1+5+1 {
		t.Fatalf("error CSV %d, %d lines (%v), want the header, 5 rows and a summary", res.StatusCode, len(rows), err)
	}
	if last := rows[len(rows)-1]; last[2] != "35 more rows were skipped; the first 5 are listed above" {
		t.Errorf("last line %q", last)
	}
}
