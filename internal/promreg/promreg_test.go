package promreg

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// A counter made again after the first was registered counts into the exported series.
func TestUseKeepsTheExportedSeries(t *testing.T) {
	reg := prometheus.NewRegistry()
	opts := prometheus.CounterOpts{Name: "switchboard_test_total", Help: "test"}
	first := Use(reg, prometheus.NewCounter(opts))
	first.Inc()
	second := Use(reg, prometheus.NewCounter(opts))
	second.Inc()
	if got := testutil.ToFloat64(first); got != 2 {
		t.Fatalf("the exported counter is %v after one increment by each maker, want 2", got)
	}
	if n, err := testutil.GatherAndCount(reg, "switchboard_test_total"); err != nil || n != 1 {
		t.Fatalf("%d series (%v), want 1", n, err)
	}
}
