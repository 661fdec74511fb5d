package carrier

import (
	"github.com/prometheus/client_golang/prometheus"

	"switchboard/store"
)

// Metrics are the carrier's Prometheus series.
type Metrics struct {
	messages *prometheus.CounterVec // carrier, outcome: sent, delivered, failed, retry
	inbound  *prometheus.CounterVec // carrier
	// recovered counts texts the inbound recovery took in that no webhook had brought;
	// recoveryFailures its checks of a carrier that failed (and are tried again).
	recovered        *prometheus.CounterVec // carrier
	recoveryFailures *prometheus.CounterVec // carrier
	// recoveryLastOK is when the last check of a carrier that succeeded ran (Unix seconds): an
	// alert can fire when it falls behind.
	recoveryLastOK *prometheus.GaugeVec // carrier
}

// NewMetrics registers the series on reg (nil: unregistered) with the outbox depth read from s.
func NewMetrics(reg *prometheus.Registry, s *store.Store) *Metrics {
	m := &Metrics{
		messages: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "switchboard_messages_total",
			Help: "Outbound messages by carrier and outcome (sent, delivered, failed, retry)."}, []string{"carrier", "outcome"}),
		inbound: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "switchboard_inbound_messages_total",
			Help: "Inbound messages recorded, by carrier."}, []string{"carrier"}),
		recovered: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "switchboard_inbound_recovered_total",
			Help: "Inbound texts recovered from the carrier's message listing because no webhook brought them, by carrier."}, []string{"carrier"}),
		recoveryFailures: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "switchboard_inbound_recovery_failures_total",
			Help: "Checks of a carrier's message listings that failed (tried again at the next check), by carrier."}, []string{"carrier"}),
		recoveryLastOK: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "switchboard_inbound_recovery_last_success_timestamp_seconds",
			Help: "When the last check of a carrier's message listings that succeeded ran, in Unix seconds, by carrier."}, []string{"carrier"}),
	}
	for _, c := range []string{store.ProviderTwilio, store.ProviderTelnyx} {
		m.recovered.WithLabelValues(c)
		m.recoveryFailures.WithLabelValues(c)
	}
	if reg != nil {
		depth := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "switchboard_outbox_depth",
			Help: "Outbound messages queued or sending."}, func() float64 { return float64(s.OutboxDepth()) })
		// Numbers whose texts no longer reach Switchboard, as the last check of each found.
		miswired := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "switchboard_number_miswired",
			Help: "Active numbers whose webhooks at their carrier no longer send texts to Switchboard, as last checked."},
			func() float64 { n, _ := Miswired(s); return float64(len(n)) })
		reg.MustRegister(m.messages, m.inbound, m.recovered, m.recoveryFailures, m.recoveryLastOK, depth, miswired)
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
