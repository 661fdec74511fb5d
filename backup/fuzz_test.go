package backup_test

import (
	"path"
	"strings"
	"testing"
	"time"

	"switchboard/backup"
)

func FuzzParseURL(f *testing.F) {
	for _, s := range []string{"s3://bucket/prefix", "s3://bucket", "s3://key:secret@bucket/p", "file:///var/backups",
		"file://relative", "file:///", "http://x/y", "s3:///nobucket", "s3://b/p?x=1", "", "::"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		loc, err := backup.ParseURL(raw)
		if err != nil {
			return
		}
		switch loc.Scheme {
		case "s3":
			if loc.Bucket == "" || strings.Contains(raw, "@") && strings.Index(raw, "@") < len("s3://")+len(loc.Bucket) {
				t.Errorf("%q parsed as %+v: want a bucket and no credentials", raw, loc)
			}
			if strings.HasPrefix(loc.Prefix, "/") || strings.HasSuffix(loc.Prefix, "/") {
				t.Errorf("%q: prefix %q keeps a slash at an end", raw, loc.Prefix)
			}
		case "file":
			if !path.IsAbs(loc.Prefix) || path.Clean(loc.Prefix) != loc.Prefix {
				t.Errorf("%q: directory %q is not a clean absolute path", raw, loc.Prefix)
			}
		default:
			t.Errorf("%q: scheme %q", raw, loc.Scheme)
		}
	})
}

func FuzzParseName(f *testing.F) {
	f.Add("switchboard-20261125T174500Z.db.gz")
	f.Add("switchboard-20261125T174500Z.db")
	f.Add("switchboard-latest.db.gz")
	f.Add("switchboard-99991231T235959Z.db.gz")
	f.Fuzz(func(t *testing.T, name string) {
		tm, ok := backup.ParseName(name)
		if !ok {
			return
		}
		// A name that parses is exactly the name of a backup taken then.
		if got := backup.Name(tm); got != name {
			t.Errorf("ParseName(%q) = %v, whose name is %q", name, tm, got)
		}
		if tm.Location() != time.UTC {
			t.Errorf("ParseName(%q) is not in UTC", name)
		}
	})
}
