package store

import (
	"encoding/json"
	"testing"
)

// TestLiveMessageDataAsMap: a message event's data is byte for byte the object the general
// path writes from a map (streams and their clients read either).
func TestLiveMessageDataAsMap(t *testing.T) {
	if liveKinds[liveKindMessage] != LiveMessage {
		t.Fatalf("liveKinds[%d] = %q, want %q", liveKindMessage, liveKinds[liveKindMessage], LiveMessage)
	}
	for _, m := range []Message{
		{ID: "01J0000000000000000000000A", ConversationID: "01J0000000000000000000000B", Status: MessageQueued, Outbound: true},
		{ID: "01J0000000000000000000000C", ConversationID: "01J0000000000000000000000D", Status: "<&>\"x\"", Outbound: false},
	} {
		for _, isNew := range []bool{false, true} {
			want, err := json.Marshal(map[string]any{"messageId": m.ID, "status": m.Status, "inbound": !m.Outbound,
				"new": isNew, "type": LiveMessage, "conversationId": m.ConversationID})
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(liveMessageData{ConversationID: m.ConversationID, Inbound: !m.Outbound,
				MessageID: m.ID, New: isNew, Status: m.Status, Type: LiveMessage})
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("message event data = %s, want %s", got, want)
			}
		}
	}
}
