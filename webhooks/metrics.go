package webhooks

import (
	"github.com/prometheus/client_golang/prometheus"

	"switchboard/internal/promreg"
	"switchboard/store"
)

// metrics are the webhook series of /metrics: queue depth, attempts by outcome, attempt latency.
type metrics struct {
	outcomes *prometheus.CounterVec
	latency  prometheus.Histogram
}

func newMetrics(reg prometheus.Registerer, s *store.Store) *metrics {
	m := &metrics{
		outcomes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "switchboard_webhook_deliveries_total",
			Help: "Webhook delivery attempts by outcome: delivered, retry (failed, will retry), failed (no retries left), gone (410, subscription removed), cancelled.",
		}, []string{"outcome"}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "switchboard_webhook_delivery_duration_seconds",
			Help:    "Latency of webhook delivery attempts (request sent to response read).",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 15},
		}),
	}
	for _, o := range []string{store.OutcomeDelivered, store.OutcomeRetry, store.OutcomeFailed, store.OutcomeGone, store.DeliveryCancelled} {
		m.outcomes.WithLabelValues(o) // export zeros, so rates work from the first scrape
	}
	if reg == nil {
		return m
	}
	depth := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "switchboard_webhook_queue_depth",
		Help: "Pending webhook deliveries (due now or waiting for a retry).",
	}, func() float64 {
		n, err := s.QueueDepth()
		if err != nil {
			return -1
		}
		return float64(n)
	})
	// A worker made again (a cluster's new leader) counts into the series already exported.
	m.outcomes = promreg.Use(reg, m.outcomes)
	m.latency = promreg.Use(reg, m.latency)
	promreg.Use(reg, depth)
	return m
}

func (m *metrics) outcome(o string) { m.outcomes.WithLabelValues(o).Inc() }
