package web

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"switchboard/store"
)

// TestUIContactImportBoundsTheFile: an upload with more columns than the mapping page can show,
// a column name that is a paragraph, or a row longer than 64 KB is refused at once, saying why,
// and leaves nothing behind; a file at the bounds is taken.
func TestUIContactImportBoundsTheFile(t *testing.T) {
	e := newUIEnv(t)
	c := e.signIn(t, e.mo)
	cols := func(n int) string {
		names := make([]string, n)
		names[0] = "phone"
		for i := 1; i < n; i++ {
			names[i] = fmt.Sprintf("c%d", i)
		}
		return strings.Join(names, ",")
	}
	for _, tc := range []struct {
		name, file, says string
	}{
		{"201 columns", cols(201) + "\n+14155550123\n", "201 columns"},
		{"a long column name", "phone," + strings.Repeat("n", 256) + "\n+14155550123,x\n", "column 2"},
		{"a long row", "phone,firstName\n+14155550123,Ana\n+14155550124," + strings.Repeat("x", 70<<10) + "\n", "Row 2"},
	} {
		res, body := e.upload(t, c, "big.csv", []byte(tc.file))
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, tc.says) || !strings.Contains(body, `role="alert"`) {
			t.Errorf("%s: %d, want 422 with an alert naming %q", tc.name, res.StatusCode, tc.says)
		}
	}
	if entries, _ := os.ReadDir(e.importDirPath()); len(entries) != 0 {
		t.Errorf("refused uploads left %d files behind", len(entries))
	}
	res, _ := e.upload(t, c, "wide.csv", []byte(cols(200)+"\n+14155550123\n"))
	wantRedirect(t, res, "/contacts/import/jobs/")
}

// TestUIContactImportSweepsUnmappedUploads: an upload left waiting for its mapping for a day is
// removed, file and all, and its page says so; one mapped meanwhile is not touched.
func TestUIContactImportSweepsUnmappedUploads(t *testing.T) {
	e := newUIEnv(t)
	c := e.signIn(t, e.mo)
	res, _ := e.upload(t, c, "later.csv", []byte("phone,firstName\n+14155550123,Ana\n"))
	loc := wantRedirect(t, res, "/contacts/import/jobs/")
	id := strings.TrimPrefix(loc, "/contacts/import/jobs/")
	file := e.importDirPath() + "/" + id + ".csv"
	if _, err := os.Stat(file); err != nil {
		t.Fatal(err)
	}
	if n, err := SweepImportUploads(e.st, e.st.Now().Add(time.Hour)); err != nil || n != 0 {
		t.Fatalf("sweep an hour later: %d, %v; want nothing swept", n, err)
	}
	if n, err := SweepImportUploads(e.st, e.st.Now().Add(25*time.Hour)); err != nil || n != 1 {
		t.Fatalf("sweep a day later: %d, %v; want the upload swept", n, err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("the swept upload's file: %v, want it gone", err)
	}
	j, err := e.st.ImportJobByID(e.a.ID, id)
	if err != nil || j.Status != store.ImportFailed || !strings.Contains(j.Error, "upload it again") {
		t.Fatalf("swept job %+v (%v), want failed, saying to upload again", j, err)
	}
	res, body := e.send(t, c, "GET", loc, nil)
	if res.StatusCode != http.StatusOK || !strings.Contains(body, "upload it again") {
		t.Fatalf("the swept job's page: %d, want it to say what happened", res.StatusCode)
	}
}

func (e *uiEnv) importDirPath() string {
	return e.st.DB().Path()[:strings.LastIndex(e.st.DB().Path(), "/")] + "/imports"
}

// FuzzImportReader: whatever the bytes, reading an upload ends, and no record it returns is
// longer than a row may be.
func FuzzImportReader(f *testing.F) {
	f.Add([]byte("phone,firstName\n+14155550123,Ana\n"), false)
	f.Add([]byte("\xef\xbb\xbfa;b\n\"x\ny\";z\n"), true)
	f.Add([]byte("\""+strings.Repeat("x", 100)), false)
	f.Fuzz(func(t *testing.T, data []byte, semicolon bool) {
		delim := ','
		if semicolon {
			delim = ';'
		}
		// Repeat the input so that long rows are reached.
		r := newImportReader(strings.NewReader(strings.Repeat(string(data), 1+(maxImportRow/(len(data)+1))/4)), delim)
		for range 100_000 {
			rec, err := r.Read()
			if err != nil && !errors.Is(err, errRowTooLong) {
				var perr *csv.ParseError
				if errors.Is(err, io.EOF) || errors.As(err, &perr) {
					if errors.Is(err, io.EOF) {
						return
					}
					continue
				}
				t.Fatalf("read: %v", err)
			}
			if errors.Is(err, errRowTooLong) {
				return
			}
			if n := len(strings.Join(rec, ",")); n > maxImportRow {
				t.Fatalf("a record of %d bytes came through", n)
			}
		}
	})
}
