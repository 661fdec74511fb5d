package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// benchRuleDocs is 100 enabled rules of every trigger, as a busy workspace has them: the message
// rules test words, a property and a group that the benchmark's texts and contacts do not have
// (so every rule is tested on every text and none acts), the conversation.unanswered ones are
// queued for every new wait, the others wait for events the benchmark does not make.
func benchRuleDocs(group, otherNumber string) []byte {
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
		add(`{"name":"Label %d","trigger":"label.added","conditions":[{"field":"label","op":"is","value":"escalate %d"}],"actions":[{"type":"close"}]}`, i, i)
	}
	for i := range 10 {
		add(`{"name":"Campaign %d","trigger":"broadcast.reply","actions":[{"type":"addLabel","label":"campaign reply"}]}`, i)
	}
	return []byte("[" + strings.Join(rules, ",") + "]")
}

type rulesWorkspace struct {
	s      *Store
	ws     Workspace
	number PhoneNumber
}

func newRulesWorkspace(b *testing.B, rules bool) rulesWorkspace {
	b.Helper()
	s, err := Open(filepath.Join(b.TempDir(), "rules.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	w, err := s.CreateWorkspace("Acme")
	if err != nil {
		b.Fatal(err)
	}
	n, err := s.AddNumber(w.ID, "+14155550100", "Main")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.AddProperty(w.ID, "plan", PropertyText); err != nil {
		b.Fatal(err)
	}
	if rules {
		g, err := s.CreateGroup(w.ID, "Platinum")
		if err != nil {
			b.Fatal(err)
		}
		other, err := s.AddNumber(w.ID, "+14155550199", "Second")
		if err != nil {
			b.Fatal(err)
		}
		added, err := s.ImportRules(w.ID, benchRuleDocs(g.ID, other.ID))
		if err != nil || len(added) != 100 {
			b.Fatalf("%d rules imported (%v)", len(added), err)
		}
	}
	return rulesWorkspace{s: s, ws: w, number: n}
}

var errBenchRollback = errors.New("roll back")

// BenchmarkAutomateInbound is the CPU an inbound text from a new number spends in the
// automations (the routing's version read, the rules of conversation.created and
// message.received tested, the unanswered rules queued), with no and with 100 enabled rules,
// inside one write transaction: what the rules add to the text's server time, without the disk.
func BenchmarkAutomateInbound(b *testing.B) {
	for _, rules := range []bool{false, true} {
		name := "rules=0"
		if rules {
			name = "rules=100"
		}
		b.Run(name, func(b *testing.B) {
			bw := newRulesWorkspace(b, rules)
			s, w, n := bw.s, bw.ws, bw.number
			// Batches of 64 texts per transaction, rolled back: one transaction holding every
			// iteration's writes would grow nodes that split only at commit, and turn quadratic.
			i := 0
			done := false
			for !done {
				err := s.writeTx(func(tx *wtx) error {
					for range 64 {
						if !b.Loop() {
							done = true
							break
						}
						i++
						now := time.Now().UTC()
						phone := fmt.Sprintf("+1303%07d", i)
						conv := Conversation{ID: s.NewID(), WorkspaceID: w.ID, From: n.Phone, OutboundChannelID: n.ID,
							Addresses: []string{phone}, InboundChannelAddresses: phone, Status: ConversationOpen,
							AssignedUserIDs: []string{}, Labels: []string{}, AwaitingSince: &now, CreatedAt: now, UpdatedAt: now}
						m := Message{ID: s.NewID(), WorkspaceID: w.ID, ConversationID: conv.ID, From: phone, To: n.Phone,
							Text: "Hi, can I move my appointment to Friday afternoon?", Status: MessageReceived, CreatedAt: now}
						c := Contact{ID: s.NewID(), WorkspaceID: w.ID, FirstName: "Ana"}
						in := InboundMessage{From: phone, To: n.Phone, Text: m.Text}
						if err := s.automateInbound(tx, &w, &n, &conv, &m, &c, &in,
							inboundFacts{created: true, first: true, newWait: true}); err != nil {
							return err
						}
					}
					return errBenchRollback
				})
				if !errors.Is(err, errBenchRollback) {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkInboundRules is whole inbound texts from new numbers, with no and with 100 enabled
// rules, from parallel writers sharing the group commit's transactions (disk included).
func BenchmarkInboundRules(b *testing.B) {
	for _, rules := range []bool{false, true} {
		name := "rules=0"
		if rules {
			name = "rules=100"
		}
		b.Run(name, func(b *testing.B) {
			bw := newRulesWorkspace(b, rules)
			var seq atomic.Int64
			b.SetParallelism(16)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := seq.Add(1)
					if _, err := bw.s.ReceiveMessage(bw.ws.ID, InboundMessage{From: fmt.Sprintf("+1404%07d", i), To: bw.number.Phone,
						Text: "Is the clinic open on Saturday?"}); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
