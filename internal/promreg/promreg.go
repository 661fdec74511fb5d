// Package promreg registers the collectors of parts that may be made more than once on one
// registry: a cluster's node makes its workers afresh each time it becomes the leader.
package promreg

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// Use registers c on reg and returns the collector reg exports under c's name: c, or the one
// an earlier part registered, so that a part made again counts into the series already
// exported instead of into one nobody reads. A collector reg refuses for another reason is
// returned unregistered.
func Use[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	err := reg.Register(c)
	var dup prometheus.AlreadyRegisteredError
	if errors.As(err, &dup) {
		if prev, ok := dup.ExistingCollector.(C); ok {
			return prev
		}
	}
	return c
}
