package store

import (
	"slices"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
)

// ParseDate takes YYYY-MM-DD real calendar dates only, and gives back what it read.
func TestParseDate(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
	}{
		{"2026-03-08", true}, {"2024-02-29", true}, {"1969-12-31", true}, {"2027-02-29", false}, {"2027-02-30", false},
		{"2026-3-8", false}, {"2026-03-08T00:00:00Z", false}, {"20260308", false}, {"2026/03/08", false},
		{"", false}, {"0000-01-01", false}, {"2026-13-01", false}, {"2026-00-10", false}, {"+026-03-08", false}, {" 2026-03-08", false},
	} {
		d, ok := ParseDate(c.in)
		if ok != c.ok || (ok && d.String() != c.in) {
			t.Errorf("ParseDate(%q) = %s, %v; want ok %v", c.in, d, ok, c.ok)
		}
	}
	ny, _ := time.LoadLocation("America/New_York")
	// 23:59:59 and 00:00:00 local are two days; the DST day's start is 00:00 EST.
	if a, b := DateOf(time.Date(2026, 3, 7, 23, 59, 59, 0, ny), ny), DateOf(time.Date(2026, 3, 8, 0, 0, 0, 0, ny), ny); b != a+1 || b.String() != "2026-03-08" {
		t.Errorf("midnight: %s then %s", a, b)
	}
	if d, _ := ParseDate("2026-03-08"); d.Weekday() != time.Sunday || !d.Start(ny).Equal(time.Date(2026, 3, 8, 5, 0, 0, 0, time.UTC)) {
		t.Errorf("2026-03-08: %s, starts %s", d.Weekday(), d.Start(ny))
	}
	if k1, k2 := Date(-1).key(), Date(0).key(); string(k1[:]) >= string(k2[:]) {
		t.Error("keys of days before 1970 do not sort first")
	}
}

func FuzzParseDate(f *testing.F) {
	for _, s := range []string{"2026-03-08", "2027-02-30", "9999-12-31", "0001-01-01", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, ok := ParseDate(s)
		if ok && d.String() != s {
			t.Fatalf("ParseDate(%q) = %s", s, d)
		}
	})
}

// The median and 90th percentile are nearest-rank values of the set; nothing to measure is nil.
func TestSummarise(t *testing.T) {
	if d := summarise(nil); d.Count != 0 || d.Median != nil || d.P90 != nil {
		t.Errorf("empty: %+v", d)
	}
	d := summarise([]uint32{50, 10, 40, 20, 30, 60, 70, 80, 90, 100})
	if *d.Median != 50 || *d.P90 != 90 || d.Count != 10 {
		t.Errorf("1..10 ×10: median %d, p90 %d", *d.Median, *d.P90)
	}
	if d := summarise([]uint32{7}); *d.Median != 7 || *d.P90 != 7 {
		t.Errorf("one: %+v", d)
	}
}

// What the rollups store reads back as written.
func TestReportRecordsRoundTrip(t *testing.T) {
	f := convFacts{number: ulid.Make(), opened: true, awaiting: true, openSince: 1772805900000000000, firstInbound: 1,
		bcast: ulid.Make(), assignees: []ulid.ULID{ulid.Make(), ulid.Make()}}
	g, err := decodeFacts(f.encode())
	if err != nil || !slices.Equal(g.encode(), f.encode()) {
		t.Errorf("facts: %+v, %v", g, err)
	}
	var r dayRow
	r[rowInbound], r[rowHour+23], r[rowFailGroup+6] = 3, 1<<40, 7
	var back dayRow
	if err := decodeRow(encodeRow(r[:]), back[:]); err != nil || back != r {
		t.Errorf("row: %v, %v", back, err)
	}
	s := []uint32{0, 0, 5, 1 << 31, 1<<32 - 1}
	if got, err := decodeSamples(encodeSamples(s)); err != nil || !slices.Equal(got, s) {
		t.Errorf("samples: %v, %v", got, err)
	}
	if got := applySamples([]uint32{1, 5, 9}, &sampleDelta{add: []uint32{3, 5}, del: []uint32{5, 9, 42}}); !slices.Equal(got, []uint32{1, 3, 5}) {
		t.Errorf("applySamples: %v", got)
	}
}

// Damaged rollup records are an error, never a panic.
func FuzzReportRecords(f *testing.F) {
	f.Add((&convFacts{opened: true, assignees: []ulid.ULID{{1}}}).encode())
	f.Add(encodeRow([]int64{1, 0, 2}))
	f.Add(encodeSamples([]uint32{1, 2, 3}))
	f.Add([]byte{factsVersion, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		if fc, err := decodeFacts(b); err == nil {
			if _, err := decodeFacts(fc.encode()); err != nil {
				t.Fatalf("facts re-encoded do not decode: %v", err)
			}
		}
		var r dayRow
		_ = decodeRow(b, r[:])
		if s, err := decodeSamples(b); err == nil && !slices.IsSorted(s) {
			t.Fatalf("samples not sorted: %v", s)
		}
	})
}
