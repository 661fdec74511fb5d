package cluster

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// Client is the `switchboard cluster` command's side of the peer channel: it talks to one
// running node, which answers for the cluster or passes the request to the leader.
type Client struct {
	key  *Key
	addr string
	c    *http.Client
}

// NewClient returns a client of the node whose peer channel (-raft-addr) is at addr.
func NewClient(key *Key, addr string) *Client {
	return &Client{key: key, addr: addr, c: peerClient(key, 0)}
}

// Reach checks that the node at the client's address speaks the peer channel with this key.
func (c *Client) Reach(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	conn, err := dialPeer(ctx, c.key, c.addr, protoHTTP)
	if err != nil {
		return err
	}
	return conn.Close()
}

// Status is one NodeInfo per node of the cluster's configuration.
func (c *Client) Status(ctx context.Context) ([]NodeInfo, error) {
	var out []NodeInfo
	err := callPeer(ctx, c.c, c.addr, http.MethodGet, "/cluster/status", nil, &out)
	return out, clientError(err)
}

// Add adds the node id whose peer channel is at addr: the leader hands it the keys and a copy of
// the database, and adds it as a voter once it took them.
func (c *Client) Add(ctx context.Context, id, addr string) error {
	return clientError(callPeer(ctx, c.c, c.addr, http.MethodPost, "/cluster/add", membership{ID: id, Addr: addr}, nil))
}

// Remove removes node id from the cluster.
func (c *Client) Remove(ctx context.Context, id string) error {
	return clientError(callPeer(ctx, c.c, c.addr, http.MethodPost, "/cluster/remove", membership{ID: id}, nil))
}

// clientError turns a node's refusal into its message.
func clientError(err error) error {
	var pe *peerError
	if errors.As(err, &pe) {
		return errors.New(pe.msg)
	}
	return err
}

// PeerAddr is the address of this node's peer channel, for the cluster command given the
// node's HTTP address.
func (n *Node) PeerAddr() string { return n.self }

// SetupToken is the cluster's one-time /setup token (Key.SetupToken).
func (n *Node) SetupToken() string { return n.cfg.Key.SetupToken() }
