package store

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strings"

	"github.com/oklog/ulid/v2"

	"switchboard/store/internal/index"
	"switchboard/store/kv"
)

// The inbox search has two plans for what was said, chosen by an estimate of the matching
// messages read from the postings' sizes (no entry decoded):
//
//   - few matches: the postings give the set of matching conversations, and the walk over the
//     activity index tests each entry against the set;
//   - many matches (a campaign's word is in every conversation): the walk tests each
//     conversation it passes by reading its messages, so a page reads about as many
//     conversations as it shows. A long conversation is decided by the postings instead of
//     being read whole; should the guess be wrong (the matches are rare among the newest
//     conversations), the walk builds the set once its reading budget is spent and goes on
//     with it.
//
// Both plans keep exactly the same conversations, so the results and their order do not
// depend on the plan.

var (
	// inboxWalkPostings is the estimated count of matching messages from which a search tests
	// conversations as it walks instead of decoding the postings (decoding a posting and
	// keeping its conversation costs about a tenth of reading a message).
	inboxWalkPostings = 30_000
	// inboxWalkMessages is how many messages the walk reads before it builds the set instead.
	inboxWalkMessages = 2_000
	// inboxConvMessages is how many messages of one conversation the walk reads, newest first;
	// a longer conversation without a match there is decided by the postings instead.
	inboxConvMessages = 32
	// inboxLongConvs is how many long conversations the walk decides by the postings (each a
	// pass over the matching postings' slots) before it builds the set instead.
	inboxLongConvs = 4
)

// inboxWork is the work one inbox search did: activity entries visited, postings entries
// decoded, messages read to test a conversation.
type inboxWork struct {
	Entries, Postings, Messages, Slots int
}

// inboxMatcher tests activity entries (conversation id, its contact's num) against a search.
type inboxMatcher struct {
	tx    *kv.Tx
	ws    []byte
	words []string // the query's message words; nil: the message test never passes
	convs map[[16]byte]struct{}
	walk  bool      // test each conversation's messages (convs not built yet)
	nums  index.Set // the matching messages' nums, decoded for the long conversations
	long  int       // long conversations decided by the postings
	cm    *index.ContactMatcher
	idx   *index.Engine
	all   bool // an empty query: every entry matches
	work  inboxWork
}

func (s *Store) newInboxMatcher(tx *kv.Tx, ws []byte, query string) (*inboxMatcher, error) {
	m := &inboxMatcher{tx: tx, ws: ws, idx: s.idx}
	if strings.TrimSpace(query) == "" {
		m.all = true
		return m, nil
	}
	m.words = index.MessageWords(query)
	if len(m.words) > 0 && s.idx.EstimateMessageMatches(tx, ws, m.words, inboxWalkPostings) >= inboxWalkPostings {
		m.walk = true
	} else if err := m.buildSet(); err != nil {
		return nil, err
	}
	var text index.TextFunc
	if recs := index.WsBucket(tx, bContacts, ws); recs != nil {
		text = contactText(recs)
	}
	cm, err := s.idx.NewContactMatcher(tx, ws, index.ParseQuery(query), text)
	if err != nil {
		return nil, err
	}
	m.cm = cm
	return m, nil
}

func (m *inboxMatcher) buildSet() error {
	convs, n, err := m.idx.MessageMatches(m.tx, m.ws, m.words)
	m.work.Postings += n
	m.convs, m.walk = convs, false
	return err
}

func (m *inboxMatcher) release() {
	if m.cm != nil {
		m.cm.Release()
	}
	if m.nums != nil {
		index.PutSet(m.nums)
		m.nums = nil
	}
}

// match reports whether the activity entry of conv, whose value is v, matches.
func (m *inboxMatcher) match(conv, v []byte) (bool, error) {
	m.work.Entries++
	if m.all {
		return true, nil
	}
	if len(v) == 4 && m.cm.Matches(binary.BigEndian.Uint32(v)) {
		return true, nil
	}
	if len(m.words) == 0 {
		return false, nil
	}
	if m.walk {
		if m.work.Messages < inboxWalkMessages {
			return m.said(conv)
		}
		if err := m.buildSet(); err != nil {
			return false, err
		}
	}
	_, ok := m.convs[[16]byte(conv)]
	return ok, nil
}

// said reports whether one of conv's indexed messages holds, for every query word, a word it
// prefixes: what the postings would say of it. It reads the newest inboxConvMessages messages;
// a longer conversation, or one met once the reading budget is spent, is decided by the
// postings.
func (m *inboxMatcher) said(conv []byte) (bool, error) {
	var id ulid.ULID
	copy(id[:], conv)
	p := make([]byte, 0, 16+1+26+1)
	p = append(append(append(append(p, m.ws...), 0), id.String()...), 0)
	msgs := m.tx.Bucket(bMessages)
	key := make([]byte, 32)
	copy(key, m.ws)
	c := m.tx.Bucket(bConvMessages).Cursor()
	// Message ids grow with time: the conversation's last key is its newest message.
	k, _ := c.Seek(append(bytes.Clone(p), bytes.Repeat([]byte{0xff}, 17)...))
	if k == nil {
		k, _ = c.Last()
	} else {
		k, _ = c.Prev()
	}
	read := 0
	for ; k != nil && bytes.HasPrefix(k, p); k, _ = c.Prev() {
		if len(k) != len(p)+16 {
			continue
		}
		if read == inboxConvMessages || m.work.Messages >= inboxWalkMessages {
			return m.decideByPostings(conv)
		}
		copy(key[16:], k[len(p):])
		v := msgs.Get(key)
		if v == nil {
			continue
		}
		read++
		m.work.Messages++
		var msg struct {
			Text    string `json:"text"`
			WordNum uint32 `json:"wordNum"`
		}
		if err := jsonUnmarshal(v, &msg); err != nil {
			return false, err
		}
		if msg.WordNum != 0 && prefixesAll(index.MessageWords(msg.Text), m.words) {
			return true, nil
		}
	}
	return false, nil
}

// decideByPostings tells whether conv has a matching message from the postings: the
// matching nums, newest first, mapped to their conversations through the slots until one is
// conv. After inboxLongConvs such passes, or with the reading budget spent, the set of every
// matching conversation is built and decides the rest.
func (m *inboxMatcher) decideByPostings(conv []byte) (bool, error) {
	if m.long == inboxLongConvs || m.work.Messages >= inboxWalkMessages {
		if err := m.buildSet(); err != nil {
			return false, err
		}
		_, ok := m.convs[[16]byte(conv)]
		return ok, nil
	}
	m.long++
	r, ok := m.idx.MsgSlots(m.tx, m.ws)
	if !ok {
		return false, nil
	}
	if m.nums == nil {
		nums, n, err := m.idx.MessageNums(m.tx, m.ws, m.words)
		m.work.Postings += n
		if err != nil {
			return false, err
		}
		m.nums = nums
	}
	want := [16]byte(conv)
	for i := len(m.nums) - 1; i >= 0; i-- {
		for word := m.nums[i]; word != 0; {
			b := 63 - uint32(bits.LeadingZeros64(word))
			word &^= 1 << b
			m.work.Slots++
			if id, ok := r.Conv(uint32(i)*64 + b); ok && id == want {
				return true, nil
			}
		}
	}
	return false, nil
}

// prefixesAll reports whether every query word prefixes one of words.
func prefixesAll(words, query []string) bool {
	for _, q := range query {
		found := false
		for _, w := range words {
			if strings.HasPrefix(w, q) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
