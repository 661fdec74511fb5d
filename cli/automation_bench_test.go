package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/store"
)

// The rules target of §29: 100 enabled rules cost an inbound text ≤ 1 ms more server time, and
// send-message and inbound throughput with 100 rules are ≥ 0.8× without. Measured as a user
// meets it: two built binaries serve two fresh data directories side by side, one with no rule
// and one with 100 enabled rules, and the same requests go to both over HTTP. Run with
//
//	go test -run '^$' -bench Rules -benchtime 1x ./cli
//
// The latency of an inbound text is taken alternately on the two servers (so a slower moment
// of the machine falls on both); the throughputs with 32 concurrent clients in short bursts,
// alternately too.

// benchRules is 100 enabled rules of every trigger, as a busy workspace has them: the message
// rules test words, properties and groups that the benchmark's texts do not have (so every rule
// is tested on every text and none acts), the conversation.unanswered ones are queued for every
// new wait, the others wait for events the benchmark does not make.
func benchRules(group, otherNumber string) []byte {
	var rules []string
	add := func(format string, args ...any) { rules = append(rules, fmt.Sprintf(format, args...)) }
	for i := range 40 {
		add(`{"name":"Words %d","trigger":"message.received","conditions":[{"field":"text","op":"contains","value":"refund request %d"}],"actions":[{"type":"addLabel","label":"refund"}]}`, i, i)
	}
	for i := range 15 {
		add(`{"name":"Plans %d","trigger":"message.received","match":"any","conditions":[{"field":"property:plan","op":"equals","value":"platinum %d"},{"field":"group","op":"in","value":%q}],"actions":[{"type":"addLabel","label":"vip"},{"type":"reply","text":"Hi {{firstName|there}}"}]}`, i, i, group)
	}
	for i := range 15 {
		add(`{"name":"Second line %d","trigger":"conversation.created","conditions":[{"field":"number","op":"is","value":%q},{"field":"hours","op":"open"}],"actions":[{"type":"addLabel","label":"line two"}]}`, i, otherNumber)
	}
	for i := range 10 {
		add(`{"name":"Chase %d","trigger":"conversation.unanswered","unansweredMinutes":%d,"actions":[{"type":"addLabel","label":"waiting"}]}`, i, 600+i)
	}
	for i := range 10 {
		add(`{"name":"Label %d","trigger":"label.added","conditions":[{"field":"label","op":"is","value":"escalate %d"}],"actions":[{"type":"note","text":"escalated"}]}`, i, i)
	}
	for i := range 10 {
		add(`{"name":"Campaign %d","trigger":"broadcast.reply","actions":[{"type":"addLabel","label":"campaign reply"}]}`, i)
	}
	return []byte("[" + strings.Join(rules, ",") + "]")
}

// rulesServer serves a fresh fixture with n rules (0 or 100).
func rulesServer(b *testing.B, n int) (fixture, *server) {
	b.Helper()
	f := newFixture(b)
	if n > 0 {
		ok(b, "admin", "add-number", "-data="+f.data, "--workspace", f.ws, "--phone", "+14155550199", "--name", "Second line")
		s, err := store.Open(dbPath(f.data), store.Options{Timeout: time.Second})
		if err != nil {
			b.Fatal(err)
		}
		var added []store.StoredRule
		g, err := s.CreateGroup(f.ws, "Platinum")
		if err == nil {
			var numbers []store.PhoneNumber
			numbers, err = s.Numbers(f.ws)
			if err == nil {
				added, err = s.ImportRules(f.ws, benchRules(g.ID, numbers[len(numbers)-1].ID))
			}
		}
		s.Close()
		if err != nil || len(added) != n {
			b.Fatalf("%d rules imported, want %d (%v)", len(added), n, err)
		}
	}
	addr := "127.0.0.1:" + testutil.FreePort(b)
	return f, startServer(b, addr, nil, "-addr", addr, "-data", f.data, "-log-requests=false", "-rate-limit", "0")
}

var benchClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 30 * time.Second}

func benchInbound(base, token, from, text string) error {
	form := url.Values{"From": {from}, "To": {"+14155550100"}, "Body": {text}}
	req, _ := http.NewRequest(http.MethodPost, base+"/carrier/sandbox/sms", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := benchClient.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("inbound: %d", res.StatusCode)
	}
	return nil
}

func benchSend(base string, f fixture, to string) error {
	body, _ := json.Marshal(map[string]any{"developerProvider": "zapier", "id": f.ws, "from": "+14155550100", "to": to,
		"text": "Your appointment is confirmed for Tuesday at 10:00."})
	req, _ := http.NewRequest(http.MethodPost, base+"/v1/integrations/developer/zapier/send-message-action", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+f.token)
	res, err := benchClient.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted {
		return fmt.Errorf("send: %d", res.StatusCode)
	}
	return nil
}

// rate runs n calls of fn on conc workers and returns calls per second.
func rate(b *testing.B, n, conc int, fn func(i int) error) float64 {
	b.Helper()
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Value
	start := time.Now()
	for range conc {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if err := fn(i); err != nil {
					failed.Store(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
	return float64(n) / time.Since(start).Seconds()
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func mean(d []time.Duration) time.Duration {
	var t time.Duration
	for _, x := range d {
		t += x
	}
	return t / time.Duration(len(d))
}

// BenchmarkRules100: an inbound text's latency and the inbound and send throughputs with 0 and
// 100 enabled rules.
func BenchmarkRules100(b *testing.B) {
	const seq, conc, burst, rounds = 2000, 32, 1000, 6
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		f0, s0 := rulesServer(b, 0)
		f1, s1 := rulesServer(b, 100)
		b.StartTimer()
		// Latency, alternating: new numbers (a new contact and conversation, the unanswered rules
		// queued), then the same numbers again (an existing conversation).
		var lat [2][2][]time.Duration // [rules][new, existing]
		for round := range 2 {
			for j := range seq {
				from := fmt.Sprintf("+1303555%04d", j)
				for k, srv := range []struct {
					base, token string
				}{{s0.base, f0.token}, {s1.base, f1.token}} {
					t0 := time.Now()
					if err := benchInbound(srv.base, srv.token, from, fmt.Sprintf("Can I move my appointment to %d?", j)); err != nil {
						b.Fatal(err)
					}
					lat[k][round] = append(lat[k][round], time.Since(t0))
				}
			}
		}
		// Throughput: short bursts taken on the two servers in turn, the first one changing each
		// round, so that a busier moment of the machine falls on both; each server's rate is its
		// requests over the time its bursts took.
		var inTime, sendTime [2]time.Duration
		servers := []struct {
			f    fixture
			base string
		}{{f0, s0.base}, {f1, s1.base}}
		for round := range rounds {
			for j := range 2 {
				k := (j + round) % 2
				srv := servers[k]
				base := 100000 + round*burst
				t0 := time.Now()
				rate(b, burst, conc, func(i int) error {
					return benchInbound(srv.base, srv.f.token, fmt.Sprintf("+1404%07d", base+i), "Is the clinic open on Saturday?")
				})
				t1 := time.Now()
				rate(b, burst, conc, func(i int) error { return benchSend(srv.base, srv.f, fmt.Sprintf("+1505%07d", base+i)) })
				inTime[k] += t1.Sub(t0)
				sendTime[k] += time.Since(t1)
			}
		}
		var inbound, send [2]float64
		for k := range 2 {
			inbound[k] = float64(rounds*burst) / inTime[k].Seconds()
			send[k] = float64(rounds*burst) / sendTime[k].Seconds()
		}
		b.StopTimer()
		s0.stop(b)
		s1.stop(b)
		for k, name := range []string{"0 rules", "100 rules"} {
			b.Logf("%-9s inbound, new number: median %v mean %v; existing conversation: median %v mean %v; inbound %.0f/s, send %.0f/s",
				name, median(lat[k][0]), mean(lat[k][0]), median(lat[k][1]), mean(lat[k][1]), inbound[k], send[k])
		}
		b.ReportMetric(float64(median(lat[1][0])-median(lat[0][0]))/1e3, "µs-added-new")
		b.ReportMetric(float64(median(lat[1][1])-median(lat[0][1]))/1e3, "µs-added-existing")
		b.ReportMetric(inbound[1]/inbound[0], "inbound-ratio")
		b.ReportMetric(send[1]/send[0], "send-ratio")
		b.ReportMetric(0, "ns/op")
	}
}
