package push

import (
	"github.com/prometheus/client_golang/prometheus"

	"switchboard/internal/promreg"
	"switchboard/store"
)

// metrics are the push series of /metrics: pushes by outcome and the outbox's depth.
type metrics struct{ outcomes *prometheus.CounterVec }

func newMetrics(reg prometheus.Registerer, s *store.Store) *metrics {
	m := &metrics{outcomes: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "switchboard_push_sent_total",
		Help: "Web Push attempts by outcome: sent, retry (429, 5xx or no answer; tried again), gone (404/410: subscription deleted), " +
			"failed (refused, or not taken within 24 hours), dropped (the subscription's session had lapsed).",
	}, []string{"outcome"})}
	for _, o := range []string{OutcomeSent, OutcomeRetry, OutcomeGone, OutcomeFailed, OutcomeDropped} {
		m.outcomes.WithLabelValues(o) // zeros from the first scrape, so rates work
	}
	if reg == nil {
		return m
	}
	depth := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "switchboard_push_queue_depth",
		Help: "Web Pushes waiting in the outbox (due now or waiting for a retry).",
	}, func() float64 {
		n, err := s.PushQueueDepth()
		if err != nil {
			return -1
		}
		return float64(n)
	})
	// A worker made again (a cluster's new leader) counts into the series already exported.
	m.outcomes = promreg.Use(reg, m.outcomes)
	promreg.Use(reg, depth)
	return m
}

func (m *metrics) outcome(o string) { m.outcomes.WithLabelValues(o).Inc() }
