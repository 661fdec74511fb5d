package carrier

import (
	"github.com/prometheus/client_golang/prometheus"

	"switchboard/store"
)

// Metrics are the carrier's Prometheus series.
type Metrics struct {
	messages *prometheus.CounterVec // carrier, outcome: sent, delivered, failed, retry
	inbound  *prometheus.CounterVec // carrier
}

// NewMetrics registers the series on reg (nil: unregistered) with the outbox depth read from s.
func NewMetrics(reg *prometheus.Registry, s *store.Store) *Metrics {
	m := &Metrics{
		messages: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "switchboard_messages_total",
			Help: "Outbound messages by carrier and outcome (sent, delivered, failed, retry)."}, []string{"carrier", "outcome"}),
		inbound: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "switchboard_inbound_messages_total",
			Help: "Inbound messages recorded, by carrier."}, []string{"carrier"}),
	}
	if reg != nil {
		depth := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "switchboard_outbox_depth",
			Help: "Outbound messages queued or sending."}, func() float64 { return float64(s.OutboxDepth()) })
		// Numbers whose texts no longer reach Switchboard, as the last check of each found.
		miswired := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "switchboard_number_miswired",
			Help: "Active numbers whose webhooks at their carrier no longer send texts to Switchboard, as last checked."},
			func() float64 { n, _ := Miswired(s); return float64(len(n)) })
		reg.MustRegister(m.messages, m.inbound, depth, miswired)
	}
	return m
}

func (m *Metrics) countOutcome(carrier string, o *store.Outcome) {
	switch {
	case len(o.ProviderIDs) > 0:
		m.messages.WithLabelValues(carrier, "sent").Inc()
		if o.Delivered {
			m.messages.WithLabelValues(carrier, "delivered").Inc()
		}
	case !o.RetryAt.IsZero():
		m.messages.WithLabelValues(carrier, "retry").Inc()
	default:
		m.messages.WithLabelValues(carrier, "failed").Inc()
	}
}
