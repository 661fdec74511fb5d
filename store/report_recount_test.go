package store

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/oklog/ulid/v2"
	"switchboard/store/kv"
)

// RecountReports counts every workspace's rollups again from its records, with a fresh machine
// per conversation, and compares them with the rollups the writes kept: day rows, samples,
// broadcast rows and each conversation's facts, exactly. It returns what differs, or that a
// build is still running (there is nothing to compare then).
func RecountReports(s *Store) error {
	return s.view(func(tx *kv.Tx) error {
		want := newReportBuf()
		facts := map[string][]byte{}
		err := tx.Bucket(bWorkspaces).ForEach(func(k, _ []byte) error {
			ws := ulid.ULID(k)
			r, err := readWSReport(tx, ws, s.routingOf)
			if err != nil {
				return err
			}
			if r.phase != buildNone {
				return fmt.Errorf("the rollups of workspace %s are being built", ws)
			}
			t := &tally{buf: want, ws: ws, rep: r, sign: 1}
			if err := forEachPrefix(tx.Bucket(bConversations), ws[:], func(k, v []byte) error {
				var c Conversation
				if err := jsonUnmarshal(v, &c); err != nil {
					return err
				}
				f, err := replayConversation(tx, t, &c)
				facts[string(k)] = f.encode()
				return err
			}); err != nil {
				return err
			}
			return forEachPrefix(tx.Bucket(bOptOuts), ws[:], func(_, v []byte) error {
				var o OptOut
				if err := jsonUnmarshal(v, &o); err != nil {
					return err
				}
				t.optOut(&o)
				return nil
			})
		})
		if err != nil {
			return err
		}
		var diffs []string
		skip := func([]byte) bool { return false }
		// Day rows.
		got := map[string][]byte{}
		_ = tx.Bucket(bReportDays).ForEach(func(k, v []byte) error {
			if !skip(k) {
				got[string(k)] = bytes.Clone(v)
			}
			return nil
		})
		for k, r := range want.rows {
			if *r == (dayRow{}) {
				continue
			}
			enc := encodeRow(r[:])
			if !bytes.Equal(got[string(k[:])], enc) {
				diffs = append(diffs, fmt.Sprintf("day row %s: kept %v, recounted %v", rowName(k[:]), rowOf(got[string(k[:])]), r))
			}
			delete(got, string(k[:]))
		}
		for k, v := range got {
			diffs = append(diffs, fmt.Sprintf("day row %s kept %v, recounted nothing", rowName([]byte(k)), rowOf(v)))
		}
		// Samples.
		got = map[string][]byte{}
		_ = tx.Bucket(bReportSamples).ForEach(func(k, v []byte) error {
			if !skip(k) {
				got[string(k)] = bytes.Clone(v)
			}
			return nil
		})
		for k, d := range want.samples {
			s := applySamples(nil, d)
			kept, _ := decodeSamples(got[string(k[:])])
			if !slices.Equal(kept, s) {
				diffs = append(diffs, fmt.Sprintf("samples %s kind %d: kept %v, recounted %v", rowName(k[:52]), k[52], kept, s))
			}
			delete(got, string(k[:]))
		}
		for k, v := range got {
			kept, _ := decodeSamples(v)
			diffs = append(diffs, fmt.Sprintf("samples %s kind %d kept %v, recounted none", rowName([]byte(k)[:52]), k[52], kept))
		}
		// Broadcast rows.
		got = map[string][]byte{}
		_ = tx.Bucket(bReportBcasts).ForEach(func(k, v []byte) error {
			if !skip(k) {
				got[string(k)] = bytes.Clone(v)
			}
			return nil
		})
		for k, r := range want.bcasts {
			if enc := encodeRow(r[:]); !bytes.Equal(got[string(k[:])], enc) {
				diffs = append(diffs, fmt.Sprintf("broadcast %s: kept %x, recounted %v", ulid.ULID(k[16:]), got[string(k[:])], r))
			}
			delete(got, string(k[:]))
		}
		for k := range got {
			diffs = append(diffs, fmt.Sprintf("broadcast %s kept, recounted nothing", ulid.ULID([]byte(k)[16:])))
		}
		// Facts.
		_ = tx.Bucket(bReportConvs).ForEach(func(k, v []byte) error {
			if skip(k) {
				return nil
			}
			if w, ok := facts[string(k)]; !ok {
				diffs = append(diffs, fmt.Sprintf("facts of %s kept for no conversation", ulid.ULID(k[16:])))
			} else if !bytes.Equal(w, v) {
				kept, _ := decodeFacts(v)
				re, _ := decodeFacts(w)
				diffs = append(diffs, fmt.Sprintf("facts of %s: kept %+v, recounted %+v", ulid.ULID(k[16:]), kept, re))
			}
			delete(facts, string(k))
			return nil
		})
		for k := range facts {
			diffs = append(diffs, fmt.Sprintf("no facts kept for conversation %s", ulid.ULID([]byte(k)[16:])))
		}
		if len(diffs) > 0 {
			slices.Sort(diffs)
			return fmt.Errorf("rollups differ from the records (%d):\n%s", len(diffs), strings.Join(diffs, "\n"))
		}
		return nil
	})
}

func rowName(k []byte) string {
	return fmt.Sprintf("%s number %s member %s", dateFromKey(k[16:20]), ulid.ULID(k[20:36]), ulid.ULID(k[36:52]))
}

func rowOf(v []byte) dayRow {
	var r dayRow
	_ = decodeRow(v, r[:])
	return r
}

// SetReportBuildBatches makes the build's steps small, so that a test sees a build in several
// steps with writes between them; the returned function puts the sizes back.
func SetReportBuildBatches(conv, optOut, clear int) (restore func()) {
	c, o, cl := buildConvBatch, buildOptOutBatch, buildClearBatch
	buildConvBatch, buildOptOutBatch, buildClearBatch = conv, optOut, clear
	return func() { buildConvBatch, buildOptOutBatch, buildClearBatch = c, o, cl }
}

// KeepReports turns the rollups off or on (the benchmarks that measure what they cost).
func KeepReports(s *Store, on bool) { s.noReports.Store(!on) }
