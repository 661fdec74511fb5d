package web

import (
	"bytes"

	"switchboard/store"
)

// What a stream may show: the events of conversations of numbers limited to teams the user is
// not in are not sent. The user's hidden numbers are read again for every batch of events (a
// change of teams applies at once); each conversation's number is looked up once per stream.
type streamSight struct {
	hidden  map[string]bool   // number ids; nil when the user sees every number
	numbers map[string]string // conversation id → its number id
}

// see reads the user's hidden numbers and the numbers of the batch's conversations not known yet.
func (h *Handler) see(s *streamSight, ws, user string, evs []store.LiveEvent) error {
	hidden, err := h.store.HiddenNumbers(ws, user)
	if err != nil {
		return err
	}
	s.hidden = hidden
	if hidden == nil {
		return nil
	}
	var ask []string
	for _, e := range evs {
		if id := liveConversationID(e.Data); id != "" {
			if _, ok := s.numbers[id]; !ok {
				ask = append(ask, id)
				s.numbers[id] = "" // asked once, even when the conversation is gone
			}
		}
	}
	if len(ask) == 0 {
		return nil
	}
	got, err := h.store.ConversationNumbers(ws, ask)
	for id, n := range got {
		s.numbers[id] = n
	}
	return err
}

// shows reports whether an event's data may go to the stream.
func (s *streamSight) shows(data []byte) bool {
	if s.hidden == nil {
		return true
	}
	id := liveConversationID(data)
	return id == "" || !s.hidden[s.numbers[id]]
}

var conversationIDKey = []byte(`"conversationId":"`)

// liveConversationID is the conversationId of a live event's data ("" when it has none). Ids
// are ULIDs, which JSON writes without escapes.
func liveConversationID(data []byte) string {
	i := bytes.Index(data, conversationIDKey)
	if i < 0 {
		return ""
	}
	rest := data[i+len(conversationIDKey):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return ""
	}
	return string(rest[:end])
}
