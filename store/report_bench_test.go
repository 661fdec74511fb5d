package store_test

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"switchboard/store"
)

// BenchmarkReportRollupCost measures what keeping the rollups costs the writes they follow:
// sends to existing conversations, contacts' texts, and exchanges (a text and its answer, which
// move a conversation's state each time), at 32 writers through the group commit. Two stores,
// one keeping the rollups and one not, take turns in ten rounds, so that the machine's other
// load falls on both alike; the cost is the median of the rounds' throughput ratios (target:
// ≤ 5 %).
//
//	go test -run '^$' -bench ReportRollupCost -benchtime 20000x ./store
func BenchmarkReportRollupCost(b *testing.B) {
	for _, kind := range []string{"send", "inbound", "exchange"} {
		b.Run(kind, func(b *testing.B) {
			type side struct {
				s    *store.Store
				ws   string
				num  string
				user string
				busy time.Duration
			}
			const contacts = 1000
			phone := func(i int) string { return fmt.Sprintf("+1303555%04d", i%contacts) }
			sides := make([]*side, 2) // 0: without the rollups, 1: with them
			for i := range sides {
				s := openStore(b, store.Options{})
				store.KeepReports(s, i == 1)
				w, err := s.CreateWorkspace("Bench")
				must(b, err)
				u, err := s.CreateUser(store.NewUser{Email: "bench@example.com", Name: "Bench"})
				must(b, err)
				_, err = s.AddMember(w.ID, u.ID, "member")
				must(b, err)
				n, err := s.AddNumber(w.ID, testFrom, "Main")
				must(b, err)
				var wg sync.WaitGroup
				for g := range 32 {
					wg.Go(func() {
						for c := g; c < contacts; c += 32 {
							_, err := s.ReceiveMessage(w.ID, store.InboundMessage{From: phone(c), To: n.Phone, Text: "hello", Provider: store.ProviderSandbox})
							must(b, err)
						}
					})
				}
				wg.Wait()
				sides[i] = &side{s: s, ws: w.ID, num: n.Phone, user: u.ID}
			}
			op := func(sd *side, i int) error {
				if kind != "send" {
					if _, err := sd.s.ReceiveMessage(sd.ws, store.InboundMessage{From: phone(i), To: sd.num, Text: "a question about my order", Provider: store.ProviderSandbox}); err != nil {
						return err
					}
				}
				if kind == "inbound" {
					return nil
				}
				_, err := sd.s.SendMessage(sd.ws, store.SendInput{From: sd.num, To: []string{phone(i)}, Text: "thanks, on its way", AuthorID: sd.user})
				return err
			}
			const rounds, writers = 10, 32
			per := max(b.N/rounds, writers)
			var ratios []float64
			b.ResetTimer()
			for r := range rounds {
				var rate [2]float64
				for k := range 2 {
					sd := sides[(r+k)%2] // who goes first alternates
					var next atomic.Int64
					var wg sync.WaitGroup
					start := time.Now()
					for range writers {
						wg.Go(func() {
							for i := int(next.Add(1)); i <= per; i = int(next.Add(1)) {
								if err := op(sd, r*per+i); err != nil {
									b.Error(err)
									return
								}
							}
						})
					}
					wg.Wait()
					d := time.Since(start)
					sd.busy += d
					rate[(r+k)%2] = float64(per) / d.Seconds()
				}
				ratios = append(ratios, rate[1]/rate[0])
			}
			slices.Sort(ratios)
			b.ReportMetric(float64(per*rounds)/sides[0].busy.Seconds(), "ops/s-without")
			b.ReportMetric(float64(per*rounds)/sides[1].busy.Seconds(), "ops/s-with")
			b.ReportMetric(100*(1-(ratios[rounds/2-1]+ratios[rounds/2])/2), "%cost")
		})
	}
}
