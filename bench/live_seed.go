package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"switchboard/internal/benchgen"
)

// ---- seeding the inbox through the server ----

// The campaign texts of the seeded broadcasts: each conversation gets one copy of each, so
// their words match every conversation, as a business's own campaign words do.
var campaignTexts = []string{
	"Hi {{firstName|there}}, our spring sale starts Friday: 20% off every order this weekend.",
	"{{firstName|Hello}}, your loyalty points are waiting. Reply with questions any time.",
	"Reminder: the clinic is closed on Monday for the holiday. See you on Tuesday, {{firstName|friend}}!",
	"New arrivals are in store this week. Show this text for free delivery, {{firstName|there}}.",
	"Hi {{firstName|there}}, how did we do? Reply 1 to 5 to rate your last visit.",
	"Flash offer for {{firstName|you}}: two tickets for the price of one until Sunday midnight.",
	"{{firstName|Hello}}, your annual check-up is due. Reply to book a time that suits you.",
	"Our summer menu is here, {{firstName|there}}: fresh salads, grilled fish and lemonade.",
	"Thanks for being with us this year, {{firstName|friend}}. Happy holidays from all of us!",
}

// vocab is a vocabulary of made-up words used with a Zipf-like frequency (a few common, most
// rare): the texts customers send, and the words searched for.
type vocab struct {
	words []string
	cum   []float64
}

func newVocab() *vocab {
	r := rand.New(rand.NewPCG(11, 11))
	syll := []string{"ka", "lo", "mi", "ra", "te", "su", "no", "be", "di", "fa", "go", "pe", "ri", "to", "va", "ze"}
	v := &vocab{}
	seen := map[string]bool{}
	for len(v.words) < 4000 {
		var b strings.Builder
		for range 2 + r.IntN(3) {
			b.WriteString(syll[r.IntN(len(syll))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			v.words = append(v.words, w)
		}
	}
	sum := 0.0
	for i := range v.words {
		sum += 1 / (float64(i) + 5)
		v.cum = append(v.cum, sum)
	}
	return v
}

func (v *vocab) word(r *rand.Rand) string {
	i, _ := slices.BinarySearch(v.cum, r.Float64()*v.cum[len(v.cum)-1])
	return v.words[min(i, len(v.words)-1)]
}

func (v *vocab) text(r *rand.Rand, words int) string {
	out := make([]string, words)
	for i := range out {
		out[i] = v.word(r)
	}
	return strings.Join(out, " ")
}

// replyText is the text conversation i's contact sends (the same in every run).
func replyText(v *vocab, i int) string {
	return v.text(rand.New(rand.NewPCG(uint64(i), 17)), 12)
}

// conversationContacts are the first k imported contacts: the ones the seeding gives a
// conversation.
func conversationContacts(k int) []benchgen.Contact {
	g := benchgen.New(1)
	out := make([]benchgen.Contact, k)
	for i := range out {
		out[i] = g.Next()
	}
	return out
}

// seedLive gives the first sz.conversations contacts a conversation of ten messages each,
// through the running server as a business would: an import puts them in a group, nine
// broadcasts to the group open a conversation with each and leave a copy of each campaign, and
// every contact replies (an inbound text on the sandbox's carrier callback). Then one contact
// writes and is written to sz.thread times (the long thread), and the outbox drains.
func seedLive(srv *sbServer, e liveEnv, sz liveSizes, fx *liveFixture) error {
	contacts := conversationContacts(sz.conversations)
	var csv strings.Builder
	csv.WriteString("phone,groups\n")
	for _, c := range contacts {
		csv.WriteString(c.Phone + ",Inbox\n")
	}
	groupCSV := filepath.Join(filepath.Dir(srv.data), "inbox-group.csv")
	if err := os.WriteFile(groupCSV, []byte(csv.String()), 0o644); err != nil {
		return err
	}
	logf("live rows: %d contacts into the group Inbox (import through the server)", len(contacts))
	if out, err := runAdmin(e.bin, srv.data, "import-contacts", "--workspace", fx.Workspace, groupCSV); err != nil {
		return err
	} else if !strings.Contains(out, fmt.Sprintf("updated %d,", len(contacts))) {
		return fmt.Errorf("group import: %s", out)
	}
	api := &apiClient{http: longClient(), base: srv.base + "/v1/integrations/developer/zapier/", token: fx.Token, ws: fx.Workspace}
	var groups []struct{ ID, Name string }
	if err := api.call("list-groups-action", map[string]any{}, http.StatusOK, &groups); err != nil {
		return err
	}
	for _, g := range groups {
		if g.Name == "Inbox" {
			fx.Group = g.ID
		}
	}
	if fx.Group == "" {
		return fmt.Errorf("no group Inbox after the import: %v", groups)
	}
	start := time.Now()
	for _, text := range campaignTexts[:sz.broadcasts] {
		if err := api.call("send-broadcast-action", map[string]any{"from": fx.Number, "groupIds": []string{fx.Group}, "text": text},
			http.StatusAccepted, nil); err != nil {
			return err
		}
	}
	logf("live rows: %d broadcasts of %d copies queued in %s; the contacts reply", sz.broadcasts, len(contacts), time.Since(start).Round(time.Second))
	client := newClient()
	v := newVocab()
	if err := parallel(16, len(contacts), func(i int) error {
		return inboundText(client, srv.base, fx.Token, contacts[i].Phone, fx.Number, replyText(v, i))
	}); err != nil {
		return err
	}
	logf("live rows: a %d-message thread", sz.thread)
	r := rand.New(rand.NewPCG(23, 23))
	texts := make([]string, sz.thread)
	for i := range texts {
		texts[i] = fmt.Sprintf("%s (%d)", v.text(r, 10), i)
	}
	if err := parallel(16, sz.thread, func(i int) error {
		if i%2 == 0 {
			return inboundText(client, srv.base, fx.Token, fx.ThreadPhone, fx.Number, texts[i])
		}
		return api.post("send-message-action", map[string]any{"from": fx.Number, "to": fx.ThreadPhone, "text": texts[i]}, http.StatusAccepted)
	}); err != nil {
		return err
	}
	var conv struct{ ID string }
	if err := api.call("create-conversation-action", map[string]any{"from": fx.Number, "to": fx.ThreadPhone}, http.StatusOK, &conv); err != nil {
		return err
	}
	fx.ThreadConv = conv.ID
	logf("live rows: waiting for the outbox to drain")
	if _, err := srv.waitDrained(60 * time.Minute); err != nil {
		return err
	}
	fx.Conversations, fx.Messages = len(contacts), len(contacts)*(sz.broadcasts+1)
	logf("live rows: seeded in %s", time.Since(start).Round(time.Second))
	return nil
}

// longClient is newClient for calls that may take minutes on a loaded machine: a broadcast to
// 100,000 contacts answers once every copy is queued.
func longClient() *http.Client {
	c := newClient()
	c.Timeout = 10 * time.Minute
	return c
}

// inboundText posts a text from `from` to `to` on the sandbox carrier's callback, as a
// contact's reply arrives (the token is a member's).
func inboundText(c *http.Client, base, token, from, to, text string) error {
	form := url.Values{"From": {from}, "To": {to}, "Body": {text}}
	req, err := http.NewRequest(http.MethodPost, base+"/carrier/sandbox/sms", strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("inbound from %s: status %d", from, res.StatusCode)
	}
	return nil
}

// call is post that also decodes the answer into out (when not nil).
func (a *apiClient) call(action string, body map[string]any, want int, out any) error {
	status, raw, err := a.do(action, body)
	if err != nil {
		return err
	}
	if status != want {
		return fmt.Errorf("%s: status %d: %.300s", action, status, raw)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(raw, out)
}

// parallel runs fn(0) … fn(total-1) on n goroutines and returns the first error.
func parallel(n, total int, fn func(i int) error) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	var first atomic.Pointer[error]
	for range n {
		wg.Go(func() {
			for first.Load() == nil {
				i := int(next.Add(1) - 1)
				if i >= total {
					return
				}
				if err := fn(i); err != nil {
					first.CompareAndSwap(nil, &err)
					return
				}
			}
		})
	}
	wg.Wait()
	if p := first.Load(); p != nil {
		return *p
	}
	return nil
}
