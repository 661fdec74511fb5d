package cli

import (
	"context"
	"log/slog"

	"switchboard/cluster"
	"switchboard/store"
)

// clusterKeyFiles are the keys kept beside the database that every node of a cluster shares:
// a session or a push works through any node. A node's first start takes them from the
// cluster; a node whose keys differ refuses to join.
var clusterKeyFiles = []string{"session.key", "push.key", "carrier.key"}

// startNode joins the cluster the flags describe; every write of s is a log entry from here on.
func startNode(ctx context.Context, s *store.Store, cfg config) (*cluster.Node, error) {
	key, err := cluster.ReadKeyFile(cfg.Cluster.KeyFile)
	if err != nil {
		return nil, err
	}
	return cluster.Start(ctx, cluster.Config{
		ID: cfg.Cluster.NodeID, Bind: cfg.Cluster.RaftAddr, Peers: cfg.Cluster.peers, Join: cfg.Cluster.Join,
		Key: key, DataDir: cfg.Data, KeyFiles: clusterKeyFiles, Store: s, Logger: slog.Default(),
	})
}
