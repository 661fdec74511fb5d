package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"switchboard/cluster"
)

// runCluster is `switchboard cluster status|add|remove`: it talks to a running node of the
// cluster over the peer channel, with the cluster key.
func runCluster(args []string, stdout, stderr io.Writer) error {
	usage := func() {
		fmt.Fprintln(stderr, `Usage: switchboard cluster COMMAND -addr HOST:PORT -cluster-key-file FILE
  status                 one line per node: id, address, role, applied index
  add ID=HOST:PORT       add the node (started with -node-id ID -raft-addr HOST:PORT and no -raft-peers)
  remove ID              remove the node from the cluster
-addr is a running node's -raft-addr (or its HTTP address).`)
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage()
		if len(args) == 0 {
			return ErrUsage
		}
		return nil
	}
	cmd := args[0]
	fs := flag.NewFlagSet("cluster "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "", "a running node's -raft-addr, or its HTTP address")
	keyFile := fs.String("cluster-key-file", "", "the cluster key file (64 hexadecimal characters)")
	if err := applyEnv(fs); err != nil {
		return err
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if *addr == "" || *keyFile == "" {
		return errors.New("give -addr HOST:PORT (a running node) and -cluster-key-file FILE")
	}
	key, err := cluster.ReadKeyFile(*keyFile)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	c, err := clusterClient(ctx, key, *addr)
	if err != nil {
		return err
	}
	switch cmd {
	case "status":
		if fs.NArg() != 0 {
			return fmt.Errorf("status takes no argument")
		}
		nodes, err := c.Status(ctx)
		if err != nil {
			return err
		}
		var w strings.Builder
		for _, n := range nodes {
			applied := strconv.FormatUint(n.Applied, 10)
			if n.Role == "unreachable" {
				applied = "-"
			}
			fmt.Fprintf(&w, "%s\t%s\t%s\t%s\n", n.ID, n.Addr, n.Role, applied)
		}
		_, err = io.WriteString(stdout, w.String())
		return err
	case "add":
		if fs.NArg() != 1 {
			return fmt.Errorf("add takes one argument: ID=HOST:PORT (the new node's -node-id and -raft-addr)")
		}
		peers, err := cluster.ParsePeers(fs.Arg(0))
		if err != nil || len(peers) != 1 {
			return fmt.Errorf("add: want ID=HOST:PORT, got %q", fs.Arg(0))
		}
		if err := c.Add(ctx, peers[0].ID, peers[0].Addr); err != nil {
			return err
		}
		fmt.Fprintln(stdout, peers[0].ID)
		return nil
	case "remove":
		if fs.NArg() != 1 {
			return fmt.Errorf("remove takes one argument: the node's id")
		}
		if err := c.Remove(ctx, fs.Arg(0)); err != nil {
			return err
		}
		fmt.Fprintln(stdout, fs.Arg(0))
		return nil
	}
	usage()
	return fmt.Errorf("unknown cluster command %q", cmd)
}

// clusterClient reaches the node at addr: its peer channel, or, when addr is the node's HTTP
// address, the peer channel that address names.
func clusterClient(ctx context.Context, key *cluster.Key, addr string) (*cluster.Client, error) {
	c := cluster.NewClient(key, addr)
	err := c.Reach(ctx)
	if err == nil {
		return c, nil
	}
	hc := &http.Client{Timeout: 5 * time.Second}
	resp, herr := hc.Get("http://" + addr + "/cluster/peer")
	if herr != nil {
		return nil, fmt.Errorf("%s: %v", addr, err)
	}
	defer resp.Body.Close()
	var peer struct {
		Addr string `json:"addr"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&peer) != nil || peer.Addr == "" {
		return nil, fmt.Errorf("%s is not a node of a cluster (%v)", addr, err)
	}
	c = cluster.NewClient(key, peer.Addr)
	if err := c.Reach(ctx); err != nil {
		return nil, fmt.Errorf("the node's peer channel at %s: %v (is -cluster-key-file the cluster's?)", peer.Addr, err)
	}
	return c, nil
}
