package store

// Inbox search at scale (p99 ≤ 50 ms at 1,000,000 contacts, 100,000 conversations and
// 1,000,000 messages): the 1M-contact fixture (bench1MFixture) is copied and given 100,000
// conversations of 10 messages each, written in big transactions as a bulk load would.
//
//	go test ./store -run '^$' -bench InboxSearch1M -timeout 2h

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"switchboard/internal/benchgen"
	"testing"
	"time"
)

const (
	benchConvs       = 100_000
	benchConvMsgs    = 10
	benchConvsPerTx  = 500
	benchVocabulary  = 4000
	benchWordsPerMsg = 12
)

// benchWords is a vocabulary of made-up words with a Zipf-like use: a few common, most rare.
func benchWords() []string {
	r := rand.New(rand.NewPCG(3, 3))
	syll := []string{"ka", "lo", "mi", "ra", "te", "su", "no", "be", "di", "fa", "go", "pe", "ri", "to", "va", "ze"}
	seen := map[string]bool{}
	var out []string
	for len(out) < benchVocabulary {
		var b strings.Builder
		for range 2 + r.IntN(3) {
			b.WriteString(syll[r.IntN(len(syll))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

func BenchmarkInboxSearch1M(b *testing.B) {
	if testing.Short() {
		b.Skip("builds 1,000,000 contacts and 1,000,000 messages")
	}
	fx := bench1MFixture(b)
	path := filepath.Join(benchDir(b), "inbox-1m.db")
	if err := copyFile(fx.path, path); err != nil {
		b.Fatal(err)
	}
	s, err := Open(path, Options{Timeout: 5 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ws := fx.workspace
	words := benchWords()
	cum := make([]float64, len(words))
	sum := 0.0
	for i := range cum {
		sum += 1 / (float64(i) + 5)
		cum[i] = sum
	}
	r := rand.New(rand.NewPCG(5, 5))
	word := func() string {
		i, _ := slices.BinarySearch(cum, r.Float64()*sum)
		return words[min(i, len(words)-1)]
	}
	g := benchgen.New(1) // the fixture's contacts, in import order
	var phones, names []string
	start := time.Now()
	var n PhoneNumber
	if n, err = s.AddNumber(ws, "+14155550100", "Bench"); err != nil {
		b.Fatal(err)
	}
	for done := 0; done < benchConvs; done += benchConvsPerTx {
		err := s.updateNow(func(tx *wtx) error {
			for range benchConvsPerTx {
				c := g.Next()
				phones, names = append(phones, c.Phone), append(names, c.First+" "+c.Last)
				at := s.Now()
				conv, _, err := s.conversationFor(tx, ws, n, []string{c.Phone}, &at)
				if err != nil {
					return err
				}
				for i := range benchConvMsgs {
					var t strings.Builder
					for j := range benchWordsPerMsg {
						if j > 0 {
							t.WriteByte(' ')
						}
						t.WriteString(word())
					}
					m := Message{ID: s.NewID(), WorkspaceID: ws, ConversationID: conv.ID, From: c.Phone, To: n.Phone,
						Text: t.String(), Status: MessageReceived, CreatedAt: at, Outbound: i%2 == 1}
					if err := putMessage(tx, &m); err != nil {
						return err
					}
				}
				if err := touchConversation(tx.Tx, &conv, at, true); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("fixture: %d conversations, %d messages written in %s", benchConvs, benchConvs*benchConvMsgs, time.Since(start).Round(time.Second))

	var byName, byNumber, byText []string
	for i := range 200 {
		p := phones[r.IntN(len(phones))]
		switch i % 3 {
		case 0:
			byNumber = append(byNumber, fmt.Sprintf("(%s) %s-%s", p[2:5], p[5:8], p[8:]))
		case 1:
			byNumber = append(byNumber, p[2:])
		default:
			byNumber = append(byNumber, "+1 "+p[2:5]+" "+p[5:])
		}
		nm := strings.Fields(names[r.IntN(len(names))])
		byName = append(byName, strings.ToLower(nm[0]))
		byName = append(byName, strings.ToLower(nm[0][:min(3, len(nm[0]))]+" "+nm[len(nm)-1]))
		byText = append(byText, word(), word()+" "+word(), word()[:3])
	}
	for _, k := range []struct {
		name    string
		queries []string
	}{{"name", byName}, {"number", byNumber}, {"text", byText}, {"no-match", []string{"zzqxv"}}} {
		b.Run(k.name, func(b *testing.B) {
			lat := make([]time.Duration, 0, 1024)
			rows, i := 0, 0
			for b.Loop() {
				q := k.queries[i%len(k.queries)]
				i++
				t0 := time.Now()
				items, _, err := s.InboxPage(ws, InboxFilter{Search: q, Limit: 50})
				lat = append(lat, time.Since(t0))
				if err != nil {
					b.Fatal(err)
				}
				rows += len(items)
			}
			slices.Sort(lat)
			pct := func(p float64) float64 {
				return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
			}
			b.ReportMetric(pct(0.50), "p50-ms")
			b.ReportMetric(pct(0.99), "p99-ms")
			b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
			b.ReportMetric(float64(rows)/float64(len(lat)), "rows/op")
		})
	}
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// BenchmarkInboxSearchSmall is the same search over 2,000 conversations, small enough to run
// anywhere: it checks the benchmark's plumbing and gives a baseline.
func BenchmarkInboxSearchSmall(b *testing.B) {
	if testing.Short() {
		b.Skip("builds a database")
	}
	s, err := Open(filepath.Join(b.TempDir(), "small.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	w, _ := s.CreateWorkspace("Small")
	n, err := s.AddNumber(w.ID, "+14155550100", "Main")
	if err != nil {
		b.Fatal(err)
	}
	words := benchWords()
	err = s.updateNow(func(tx *wtx) error {
		g := benchgen.New(2)
		for i := range 2000 {
			c := g.Next()
			at := s.Now()
			conv, _, err := s.conversationFor(tx, w.ID, n, []string{c.Phone}, &at)
			if err != nil {
				return err
			}
			m := Message{ID: s.NewID(), WorkspaceID: w.ID, ConversationID: conv.ID, From: c.Phone, To: n.Phone,
				Text: words[i%len(words)] + " " + words[(i*7)%len(words)], Status: MessageReceived, CreatedAt: at}
			if err := putMessage(tx, &m); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, err := s.InboxPage(w.ID, InboxFilter{Search: words[3][:3]}); err != nil {
			b.Fatal(err)
		}
	}
}
