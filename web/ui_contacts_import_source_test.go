package web

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// Any upload reads to its end: every record has the header's cells or says what is wrong with
// it, rows count up from 1, and nothing panics.
func FuzzImportSource(f *testing.F) {
	for _, s := range []string{
		"phone,firstName\n+14155550101,Ana\n",
		"\xef\xbb\xbfphone;name\n1;\"a\nb\"\n",
		"phone,firstName\n+1,\"Ana\n+2,Bo\n",
		"a,b\n1,2,3\n\"\n",
		"a\n\"x\"y\"\n",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, semicolon bool) {
		path := filepath.Join(t.TempDir(), "up.csv")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		in, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		delim := ','
		if semicolon {
			delim = ';'
		}
		src, err := openImportSource(in, delim)
		if err != nil {
			return // no header
		}
		for want := 1; ; want++ {
			rec, err := src.next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				t.Fatalf("row %d: %v", want, err)
			}
			if rec.row != want || rec.line < 1 {
				t.Fatalf("record %+v, want row %d on a line ≥ 1", rec, want)
			}
			if rec.problem == "" && len(rec.cells) != len(src.header) {
				t.Fatalf("row %d has %d cells for %d columns and no problem", want, len(rec.cells), len(src.header))
			}
		}
	})
}
