package store_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"switchboard/store"
)

// BenchmarkBroadcast100k measures the performance target: a broadcast of 100,000 recipients, 10 %
// of them opted out, queued in ≤ 5 s. The API takes at most 10,000 recipients per call, so it
// is ten calls. "known-contacts" sends to existing contacts (the usual case: a list);
// "new-numbers" also creates a contact and a conversation per recipient.
func BenchmarkBroadcast100k(b *testing.B) {
	for _, known := range []bool{true, false} {
		name := "new-numbers"
		if known {
			name = "known-contacts"
		}
		b.Run(name, func(b *testing.B) {
			var total time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				s, ws, from, recipients := broadcastFixture(b, known)
				b.StartTimer()
				start := time.Now()
				queued, optedOut := 0, 0
				for part := 0; part < len(recipients); part += store.MaxBroadcastRecipients {
					bc, err := s.SendBroadcast(ws, store.BroadcastInput{From: from,
						Recipients: recipients[part : part+store.MaxBroadcastRecipients], Text: "Spring sale: 20% off this week"})
					if err != nil {
						b.Fatal(err)
					}
					queued += len(bc.Recipients)
					optedOut += bc.TotalOptedOut
				}
				total += time.Since(start)
				b.StopTimer()
				if queued != 90_000 || optedOut != 10_000 {
					b.Fatalf("queued %d, opted out %d; want 90000 and 10000", queued, optedOut)
				}
				s.Close()
			}
			b.ReportMetric(total.Seconds()/float64(b.N), "s/100k-recipients")
		})
	}
}

func broadcastFixture(b *testing.B, known bool) (*store.Store, string, string, []string) {
	s, err := store.Open(filepath.Join(b.TempDir(), "bench.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	w, err := s.CreateWorkspace("Bench")
	if err != nil {
		b.Fatal(err)
	}
	from := "+14155550100"
	if _, err := s.AddNumber(w.ID, from, "Main"); err != nil {
		b.Fatal(err)
	}
	recipients := make([]string, 100_000)
	for i := range recipients {
		// Unique numbers spread over area codes, in no particular order.
		recipients[i] = fmt.Sprintf("+1%03d%07d", 200+i%800, (i*7919)%10_000_000)
	}
	if known {
		ins := make([]store.ContactInput, len(recipients))
		for i, p := range recipients {
			first := fmt.Sprintf("Name%d", i)
			ins[i] = store.ContactInput{Phone: p, FirstName: &first, Source: store.SourceImport}
		}
		if _, err := store.BulkContacts(s, w.ID, ins); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < len(recipients); i += 10 {
		if _, _, err := s.CreateOptOut(w.ID, "", recipients[i], store.OptOutAPI); err != nil {
			b.Fatal(err)
		}
	}
	return s, w.ID, from, recipients
}
