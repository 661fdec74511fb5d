package cluster

import (
	"bytes"
	"crypto/ed25519"
	"crypto/hkdf"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"os"
	"strings"
	"time"
)

// Key is the cluster key: 32 random bytes, the same on every node. Holding it is what makes a
// process a peer: the TLS identity of the peer channel and the key that signs what a node
// forwards to another are both derived from it.
type Key struct {
	tls   tls.Certificate
	pub   ed25519.PublicKey
	setup string // the one-time setup token every node derives alike (SetupToken)
}

// ReadKeyFile reads a cluster key file: 64 hexadecimal characters (32 bytes), surrounding
// white space allowed.
func ReadKeyFile(path string) (*Key, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cluster key: %w", err)
	}
	return ParseKey(string(data))
}

// ParseKey parses the text of a cluster key file.
func ParseKey(text string) (*Key, error) {
	text = strings.TrimSpace(text)
	raw, err := hex.DecodeString(text)
	if err != nil || len(raw) != 32 {
		return nil, errors.New("cluster key: want 64 hexadecimal characters (32 random bytes), e.g. from `openssl rand -hex 32`")
	}
	return newKey(raw)
}

func newKey(raw []byte) (*Key, error) {
	seed, err := hkdf.Key(sha256.New, raw, nil, "switchboard cluster peer identity v1", ed25519.SeedSize)
	if err != nil {
		return nil, err
	}
	setup, err := hkdf.Key(sha256.New, raw, nil, "switchboard cluster setup token v1", 32)
	if err != nil {
		return nil, err
	}
	priv := ed25519.NewKeyFromSeed(seed)
	pub := priv.Public().(ed25519.PublicKey)
	// A certificate of the derived key, signed by itself; peers pin the key, not a CA, so its
	// names and dates only need to parse.
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "switchboard cluster peer"},
		NotBefore:    time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC),
		NotAfter:     time.Date(2120, 1, 1, 0, 0, 0, 0, time.UTC),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		DNSNames:     []string{"switchboard-peer"},
	}
	der, err := x509.CreateCertificate(nil, tmpl, tmpl, pub, priv)
	if err != nil {
		return nil, err
	}
	return &Key{tls: tls.Certificate{Certificate: [][]byte{der}, PrivateKey: priv}, pub: pub,
		setup: base64.RawURLEncoding.EncodeToString(setup)}, nil
}

// verify accepts exactly one certificate: one of the cluster key's own public key. TLS 1.3
// makes the other end prove it holds the private key, so only holders of the cluster key pass.
func (k *Key) verify(raw [][]byte, _ [][]*x509.Certificate) error {
	if len(raw) == 0 {
		return errors.New("cluster: the peer sent no certificate")
	}
	cert, err := x509.ParseCertificate(raw[0])
	if err != nil {
		return fmt.Errorf("cluster: peer certificate: %w", err)
	}
	pub, ok := cert.PublicKey.(ed25519.PublicKey)
	if !ok || !bytes.Equal(pub, k.pub) {
		return errors.New("cluster: the peer does not hold this cluster's key")
	}
	return nil
}

// ServerTLS is the TLS configuration of a node's peer listener: it requires the client's
// certificate and accepts only the cluster's.
func (k *Key) ServerTLS() *tls.Config {
	return &tls.Config{
		MinVersion:            tls.VersionTLS13,
		Certificates:          []tls.Certificate{k.tls},
		ClientAuth:            tls.RequireAnyClientCert,
		VerifyPeerCertificate: k.verify,
	}
}

// ClientTLS is the TLS configuration of a connection to a peer: it presents the cluster's
// certificate and accepts only the cluster's. The chain is not checked against a CA (there is
// none); the pinned key is the check.
func (k *Key) ClientTLS() *tls.Config {
	return &tls.Config{
		MinVersion:            tls.VersionTLS13,
		Certificates:          []tls.Certificate{k.tls},
		InsecureSkipVerify:    true, // replaced by VerifyPeerCertificate's pin
		VerifyPeerCertificate: k.verify,
		ServerName:            "switchboard-peer",
	}
}

// SetupToken is the one-time /setup token of a cluster with no administrator yet: the same on
// every node, so the link any node prints works through all of them.
func (k *Key) SetupToken() string { return k.setup }
