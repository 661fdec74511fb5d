package web

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"switchboard/carrier"
	"switchboard/store"
)

// The carrier metrics at /metrics.

// metric returns the value of the series named exactly series (name and labels as exposed).
func metric(t *testing.T, text, series string) (float64, bool) {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(line, series+" "); ok {
			var v float64
			if _, err := fmt.Sscan(rest, &v); err != nil {
				t.Fatalf("metric line %q: %v", line, err)
			}
			return v, true
		}
	}
	return 0, false
}

func TestCarrierMetrics(t *testing.T) {
	e := newCarrierEnv(t, map[string]carrier.Carrier{store.ProviderSandbox: carrier.Sandbox{}})
	scrape := func() string {
		res, err := e.srv.Client().Get(e.srv.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return string(b)
	}
	var ids []string
	for i := range 3 {
		m := e.post(t, "send-message-action", e.body(obj{"from": fromNumber, "to": toNumber, "text": fmt.Sprint("hi ", i)})).want(t, http.StatusAccepted).object(t)
		ids = append(ids, m["id"].(string))
	}
	for _, id := range ids {
		e.waitStatus(t, id, "delivered")
	}
	wantTwiML(t, e.signed(t, "/carrier/twilio/sms", inboundForm("SM0007aaaabbbbccccddddeeeeffff0001", contactPhone, twilioNumber, "hi")), "<Response></Response>")
	// A repeat is not counted again.
	wantTwiML(t, e.signed(t, "/carrier/twilio/sms", inboundForm("SM0007aaaabbbbccccddddeeeeffff0001", contactPhone, twilioNumber, "hi")), "<Response></Response>")

	text := scrape()
	for _, c := range []struct {
		series string
		want   float64
	}{
		{"switchboard_outbox_depth", 0},
		{`switchboard_messages_total{carrier="sandbox",outcome="sent"}`, 3},
		{`switchboard_messages_total{carrier="sandbox",outcome="delivered"}`, 3},
		{`switchboard_inbound_messages_total{carrier="twilio"}`, 1},
	} {
		v, ok := metric(t, text, c.series)
		if !ok {
			t.Errorf("/metrics lacks %s", c.series)
		} else if v != c.want {
			t.Errorf("%s = %v, want %v", c.series, v, c.want)
		}
	}

	// The depth counts what waits: with no dispatcher running, queued sends stay queued.
	idle := newCarrierEnv(t, nil)
	for i := range 2 {
		idle.post(t, "send-message-action", idle.body(obj{"from": fromNumber, "to": toNumber, "text": fmt.Sprint("wait ", i)})).want(t, http.StatusAccepted)
	}
	res, err := idle.srv.Client().Get(idle.srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if v, ok := metric(t, string(b), "switchboard_outbox_depth"); !ok || v != 2 {
		t.Errorf("switchboard_outbox_depth with 2 queued = %v (present %v), want 2", v, ok)
	}
}
