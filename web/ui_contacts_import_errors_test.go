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

// Issue 38, item 5: every skipped row comes back in the error file with the line it starts on,
// its cells as written under the file's own columns, and the real reason: a row of five cells
// says five (not what the mapping made of it), a quote left open names its line and the lines it
// swallowed (instead of importing the next row as part of a name), and a number with a letter in
// it is refused, not read as the digits before. A cell over two lines in closed quotes imports.
// A cell a spreadsheet would run as a formula comes back as text, behind an apostrophe, as in
// every CSV the product writes; numbers stay as they are.
func TestUIContactImportErrorFileHasTheRows(t *testing.T) {
	e := newUIEnv(t)
	c := e.signIn(t, e.mo)
	file := "phone,firstName,lastName,email\n" + // line 1
		"+14155550101,Ana,Lima,ana@example.com\n" + // 2: row 1
		"+14155550102,Flo,\"Mc\nKay\",flo@example.com\n" + // 3–4: row 2, a cell over two lines
		"+14155550103,Bo,Li,bo@example.com,extra\n" + // 5: row 3, five cells
		"(415) 555-0958x,Cy,Ray,cy@example.com\n" + // 6: row 4, a letter in the number
		"+14155550105,Di,Ng,di@\n" + // 7: row 5, a bad e-mail
		"+14155550108,Gil,=HYPERLINK(\"x\"),gil@\n" + // 8: row 6, a bad e-mail and a formula
		"+14155550106,\"Ed,Su,ed@example.com\n" + // 9: row 7, a quote never closed…
		"+14155550107,Fay,Wu,fay@example.com\n" // 10: …swallows this row
	res, _ := e.upload(t, c, "patients.csv", []byte(file))
	loc := wantRedirect(t, res, "/contacts/import/jobs/")
	res, body := e.send(t, c, "GET", loc, nil)
	wantPage(t, "the preview", res, body, http.StatusOK, "has 5 cells where the header has 4",
		"which is no part of a phone number", "has a quote that opens the &#34;firstName&#34; cell on line 9")
	res, _ = e.send(t, c, "POST", loc, url.Values{"col.0": {"phone"}, "col.1": {"firstName"}, "col.2": {"lastName"}, "col.3": {"email"}, "action": {"start"}})
	wantRedirect(t, res, loc)
	id := strings.TrimPrefix(loc, "/contacts/import/jobs/")
	j := waitImport(t, e, id)
	if j.Status != store.ImportDone || j.Created != 2 || j.Skipped != 5 {
		t.Fatalf("job %+v, want done: 2 created (Ana, Flo), 5 skipped", j)
	}
	if flo, err := e.st.ContactByPhone(e.a.ID, "+14155550102"); err != nil || flo.LastName != "Mc Kay" {
		t.Errorf("Flo: %+v, %v; want her two-line last name imported", flo, err)
	}
	res, body = e.send(t, c, "GET", loc+"/errors.csv", nil)
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if res.StatusCode != http.StatusOK || err != nil {
		t.Fatalf("error CSV %d: %v", res.StatusCode, err)
	}
	want := [][]string{
		{"row", "column", "message", "line", "phone", "firstName", "lastName", "email", "cells past the header"},
		{"3", "", "has 5 cells where the header has 4", "5", "+14155550103", "Bo", "Li", "bo@example.com", "extra"},
		{"4", "phone", `has "x", which is no part of a phone number: write the number with digits only`, "6", "(415) 555-0958x", "Cy", "Ray", "cy@example.com", ""},
		{"5", "email", "must be an email address such as ana@example.com", "7", "+14155550105", "Di", "Ng", "di@", ""},
		{"6", "email", "must be an email address such as ana@example.com", "8", "+14155550108", "Gil", `'=HYPERLINK("x")`, "gil@", ""},
		{"7", "", `has a quote that opens the "firstName" cell on line 9 and is not closed on that line, so lines 9 to 10 were read as one row: close the quote or remove it`,
			"9", "+14155550106", "Ed,Su,ed@example.com\n+14155550107,Fay,Wu,fay@example.com\n", "", "", ""},
	}
	if len(rows) != len(want) {
		t.Fatalf("error CSV has %d lines, want %d:\n%s", len(rows), len(want), body)
	}
	for i := range want {
		if strings.Join(rows[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("error CSV line %d:\n got %q\nwant %q", i+1, rows[i], want[i])
		}
	}
}

// waitImport waits for the job to leave running.
func waitImport(t *testing.T, e *uiEnv, id string) store.ImportJob {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		j, err := e.st.ImportJobByID(e.a.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		if j.Status != store.ImportRunning || time.Now().After(deadline) {
			return j
		}
	}
}
