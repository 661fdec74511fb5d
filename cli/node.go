package cli

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"time"

	"switchboard/cluster"
	"switchboard/store"
)

// clusterKeyFiles are the keys kept beside the database that every node of a cluster shares:
// a session, a push, a connected carrier account and a sealed secret (two-factor, a queued
// e-mail's link) work through any node, and on whichever node leads after a failover. A node's
// first start takes them from the cluster; a node whose keys differ refuses to join.
var clusterKeyFiles = []string{"session.key", "push.key", "carrier.key", "secret.key"}

// openServeStore opens the database serve runs on. keyless says it was opened without the
// secret key: a cluster's node starting for the first time from another node's copy makes no
// secret key of its own, since it takes the cluster's with the copy (a key of its own would
// differ, and the node would refuse to join); startNode then gives the store that key.
func openServeStore(cfg config) (s *store.Store, keyless bool, err error) {
	opts := store.Options{Timeout: time.Second}
	if !cfg.Cluster.enabled() || cfg.Cluster.seeds() {
		s, err = openStore(cfg.Data, opts)
		return s, false, err
	}
	if _, err := os.Stat(secretKeyPath(cfg.Data)); !errors.Is(err, fs.ErrNotExist) {
		s, err = openStore(cfg.Data, opts)
		return s, false, err
	}
	s, err = store.Open(dbPath(cfg.Data), opts)
	return s, true, err
}

// startNode joins the cluster the flags describe; every write of s is a log entry from here on.
// A store opened keyless (openServeStore) takes the secret key the node now holds.
func startNode(ctx context.Context, s *store.Store, cfg config, keyless bool) (*cluster.Node, error) {
	key, err := cluster.ReadKeyFile(cfg.Cluster.KeyFile)
	if err != nil {
		return nil, err
	}
	node, err := cluster.Start(ctx, cluster.Config{
		ID: cfg.Cluster.NodeID, Bind: cfg.Cluster.RaftAddr, Peers: cfg.Cluster.peers, Join: cfg.Cluster.Join,
		Key: key, DataDir: cfg.Data, KeyFiles: clusterKeyFiles, Store: s, Logger: slog.Default(),
	})
	if err != nil || !keyless {
		return node, err
	}
	secret, err := loadSecretKey(cfg.Data)
	if err == nil {
		err = s.UseSecretKey(secret)
	}
	if err != nil {
		node.Close()
		return nil, err
	}
	return node, nil
}
