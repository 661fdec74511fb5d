package web

import (
	"bytes"
	"encoding/json"
	"testing"

	"switchboard/store"
)

// FuzzAppendContacts: the hand-written encoding of find-contact's answer is byte for byte what
// encoding/json writes for the same records, whatever the names, e-mail, phone and properties
// hold (quotes, HTML characters, control characters, invalid UTF-8, numbers, booleans, null).
func FuzzAppendContacts(f *testing.F) {
	f.Add("María", "O'Hara", "a<b>&c@example.com", "+14155550123", "company", "Acme \"Inc\"", 42.5, true)
	f.Add("", "", "", "", "", "", 0.0, false)
	f.Add("\x00\x1f\x7f", "\u2028\u2029", "\xff\xfe", "+1", "k\\", "v\n", 1e21, false)
	f.Add("Zoë", "Nguyễn", "zoë@example.com", "+447700900123", "score", "中文", 1e-7, true)
	f.Add("a\u2028b", "x", "y", "+1", "z", "é\xffé", -0.0, true)
	f.Add("Ann", "Lee", "ann@example.com", "+1", "n", "v", 100000000000000000000.0, false)
	f.Fuzz(func(t *testing.T, first, last, email, phone, key, val string, num float64, flag bool) {
		props := map[string]any{key: val, key + "n": num, key + "b": flag, key + "z": nil}
		cs := []store.Contact{
			{ID: "01M8KH4ZCZH163QDJ6MNA79HCP", WorkspaceID: "01M8KH4ZBY1WRZBC1D3G69DM8R", FirstName: first, LastName: last,
				Email: email, Properties: props, InboundChannels: []store.InboundChannel{{Address: phone, IsDefault: true}}},
			{ID: "01M8KH4ZCZH163QDJ6MNA79HCQ", WorkspaceID: "01M8KH4ZBY1WRZBC1D3G69DM8R", FirstName: last},
		}
		var want []contactResult
		for _, c := range cs {
			want = append(want, newContactResult(c))
		}
		wantJSON, wantErr := json.Marshal(want)
		got, err := appendContacts(nil, cs)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("error %v, encoding/json's %v", err, wantErr)
		}
		if err == nil && !bytes.Equal(got, wantJSON) {
			t.Fatalf("got  %s\nwant %s", got, wantJSON)
		}
	})
}
