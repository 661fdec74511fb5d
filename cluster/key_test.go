package cluster

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"strings"
	"testing"
	"time"
)

const (
	testKeyA = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
	testKeyB = "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100"
)

func mustKey(t *testing.T, text string) *Key {
	t.Helper()
	k, err := ParseKey(text)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestOnlyHoldersOfTheKeyTalk: the peer channel's TLS accepts a client with the same cluster key
// and refuses one with another key, on both sides; a key's derived identity is the same
// wherever it is read.
func TestOnlyHoldersOfTheKeyTalk(t *testing.T) {
	a, b := mustKey(t, testKeyA), mustKey(t, testKeyB)
	if again := mustKey(t, "  "+strings.ToUpper(testKeyA)+"\n"); !again.pub.Equal(a.pub) || again.SetupToken() != a.SetupToken() {
		t.Fatal("the same key read twice derives another identity or setup token")
	}
	if a.SetupToken() == b.SetupToken() {
		t.Fatal("two keys derive the same setup token")
	}
	m, err := listenMux("127.0.0.1:0", a)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	go func() {
		for {
			c, err := m.http.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("ok"))
			c.Close()
		}
	}()
	addr := m.ln.Addr().String()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := dialPeer(ctx, a, addr, protoHTTP)
	if err != nil {
		t.Fatalf("a holder of the key: %v", err)
	}
	buf := make([]byte, 2)
	if _, err := c.Read(buf); err != nil || string(buf) != "ok" {
		t.Errorf("a holder of the key read %q, %v; want ok", buf, err)
	}
	c.Close()
	// Another key: the client refuses the server's certificate, and the server refuses the
	// client's.
	if c, err := dialPeer(ctx, b, addr, protoHTTP); err == nil {
		_, rerr := c.Read(buf)
		c.Close()
		if rerr == nil {
			t.Error("a client with another key was served")
		}
	}
	// A client without a certificate at all is refused by the server.
	raw, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS13})
	if err == nil {
		raw.Write([]byte{protoHTTP})
		_ = raw.SetReadDeadline(time.Now().Add(2 * time.Second))
		_, rerr := raw.Read(buf)
		raw.Close()
		var ne net.Error
		if rerr == nil || errors.As(rerr, &ne) && ne.Timeout() {
			t.Error("a client without the cluster's certificate was not refused")
		}
	}
}

func TestParseKeyRefusesBadText(t *testing.T) {
	for _, text := range []string{"", "abc", testKeyA[:62], testKeyA + "00", "zz" + testKeyA[2:]} {
		if _, err := ParseKey(text); err == nil {
			t.Errorf("ParseKey(%q) took it", text)
		}
	}
}

func TestParsePeers(t *testing.T) {
	good, err := ParsePeers(" n1=127.0.0.1:7001, n2=host.example:7002 ,n3=[::1]:7003")
	if err != nil || len(good) != 3 || good[1] != (Peer{"n2", "host.example:7002"}) {
		t.Fatalf("ParsePeers: %v, %v", good, err)
	}
	for _, bad := range []string{"n1", "=127.0.0.1:1", "n1=", "n1=nohost", "n1=a:1,n1=b:2"} {
		if _, err := ParsePeers(bad); err == nil {
			t.Errorf("ParsePeers(%q) took it", bad)
		}
	}
}

// FuzzParsePeers and FuzzParseKey: no input makes the flag readers panic, and what ParsePeers
// takes has ids and addresses.
func FuzzParsePeers(f *testing.F) {
	f.Add("n1=127.0.0.1:7001,n2=127.0.0.1:7002")
	f.Add("=,=:,a==b:1")
	f.Fuzz(func(t *testing.T, s string) {
		peers, err := ParsePeers(s)
		if err != nil {
			return
		}
		for _, p := range peers {
			if p.ID == "" || p.Addr == "" {
				t.Fatalf("ParsePeers(%q) took an empty part: %+v", s, p)
			}
		}
	})
}

func FuzzParseKey(f *testing.F) {
	f.Add(testKeyA)
	f.Add("0x" + testKeyA)
	f.Fuzz(func(t *testing.T, s string) { _, _ = ParseKey(s) })
}
