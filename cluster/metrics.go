package cluster

import "github.com/prometheus/client_golang/prometheus"

// Register adds the node's raft series to reg: its state, term, commit and applied index, and
// the leader changes it has seen.
func (n *Node) Register(reg prometheus.Registerer) error {
	cs := []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "switchboard_raft_term", Help: "The node's current Raft term."},
			func() float64 { return float64(n.raft.CurrentTerm()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "switchboard_raft_commit_index", Help: "The highest log index the node knows to be committed."},
			func() float64 { return float64(n.raft.CommitIndex()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "switchboard_raft_applied_index", Help: "The highest log index applied to the node's database."},
			func() float64 { return float64(n.raft.AppliedIndex()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "switchboard_raft_last_index", Help: "The highest index in the node's log."},
			func() float64 { return float64(n.raft.LastIndex()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "switchboard_raft_leader_changes_total", Help: "Leader changes this node has seen since it started."},
			func() float64 { return float64(n.leaderChanges.Load()) }),
	}
	for _, state := range []string{"leader", "follower", "candidate"} {
		cs = append(cs, prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "switchboard_raft_state",
			Help: "1 for the node's current Raft state (leader, follower, candidate).", ConstLabels: prometheus.Labels{"state": state}},
			func() float64 {
				if n.Role() == state {
					return 1
				}
				return 0
			}))
	}
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}
