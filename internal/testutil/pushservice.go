package testutil

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// PushService is a Web Push service run by a test that plays the browser's side as well: the
// test makes each device's P-256 key pair and 16-byte authentication secret (NewDevice), the
// server encrypts for it, and the service checks every request as a real push service and a
// real browser would together — the VAPID JWT (ES256, aud = this service's origin, exp at most
// 24 hours ahead, a sub), the TTL, and the RFC 8291 aes128gcm body, which it decrypts with the
// device's private key. The decryption here is written from the RFCs with HMAC-SHA256 and
// AES-GCM alone, apart from the server's code, so a shared misreading cannot pass unnoticed.
type PushService struct {
	*httptest.Server
	t testing.TB

	mu       sync.Mutex
	devices  map[string]*PushDevice
	got      []Push
	answers  map[string][]PushAnswer // by device id, consumed in order
	vapidKey string                  // the k the server must sign with ("" takes the first seen)
	notify   chan struct{}
	held     chan struct{} // while not nil, requests wait for it to close (Hold)
	arrived  int           // requests that reached the service, held ones included
}

// PushDevice is one browser's subscription as the test holds it.
type PushDevice struct {
	ID       string
	Endpoint string
	priv     *ecdh.PrivateKey
	auth     []byte
}

// Push is one push the service took and decrypted.
type Push struct {
	Device  string
	Payload []byte // the plaintext the server sent
	Header  http.Header
	At      time.Time
}

// PushAnswer is a status the service answers with instead of 201, with an optional Retry-After.
type PushAnswer struct {
	Status     int
	RetryAfter string
}

// StartPushService starts the service until the test ends.
func StartPushService(t testing.TB) *PushService {
	t.Helper()
	ps := &PushService{t: t, devices: map[string]*PushDevice{}, answers: map[string][]PushAnswer{}, notify: make(chan struct{}, 1)}
	ps.Server = httptest.NewServer(http.HandlerFunc(ps.serve))
	t.Cleanup(ps.Close)
	t.Cleanup(ps.Release) // runs first: Close waits for the requests it holds
	return ps
}

// ExpectKey makes the service refuse pushes signed with any VAPID public key but k (base64url).
func (ps *PushService) ExpectKey(k string) { ps.mu.Lock(); ps.vapidKey = k; ps.mu.Unlock() }

// NewDevice makes a device: its key pair, its secret and its endpoint on this service.
func (ps *PushService) NewDevice() *PushDevice {
	ps.t.Helper()
	priv, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		ps.t.Fatal(err)
	}
	auth := make([]byte, 16)
	rand.Read(auth)
	var id [12]byte
	rand.Read(id[:])
	d := &PushDevice{ID: fmt.Sprintf("%x", id), priv: priv, auth: auth}
	d.Endpoint = ps.URL + "/wpush/v2/" + d.ID
	ps.mu.Lock()
	ps.devices[d.ID] = d
	ps.mu.Unlock()
	return d
}

// JSON is the device's PushSubscription.toJSON(), as a browser posts it.
func (d *PushDevice) JSON() string {
	b64 := base64.RawURLEncoding.EncodeToString
	out, _ := json.Marshal(map[string]any{"endpoint": d.Endpoint, "expirationTime": nil,
		"keys": map[string]string{"p256dh": b64(d.priv.PublicKey().Bytes()), "auth": b64(d.auth)}})
	return string(out)
}

// Answer queues statuses the service gives the device's next pushes, in order, before 201s.
func (ps *PushService) Answer(d *PushDevice, answers ...PushAnswer) {
	ps.mu.Lock()
	ps.answers[d.ID] = append(ps.answers[d.ID], answers...)
	ps.mu.Unlock()
}

// Received is every push taken so far.
func (ps *PushService) Received() []Push {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return append([]Push(nil), ps.got...)
}

// WaitFor waits until n pushes were taken, at most d, and returns them.
func (ps *PushService) WaitFor(n int, d time.Duration) []Push {
	ps.t.Helper()
	deadline := time.After(d)
	for {
		if got := ps.Received(); len(got) >= n {
			return got
		}
		select {
		case <-ps.notify:
		case <-deadline:
			ps.t.Fatalf("the push service took %d pushes in %v, want %d", len(ps.Received()), d, n)
		}
	}
}

// Hold makes the service take requests without answering them, as a push service that hangs,
// until Release; a request whose client goes away meanwhile is dropped unanswered.
func (ps *PushService) Hold() { ps.mu.Lock(); ps.held = make(chan struct{}); ps.mu.Unlock() }

// Release answers the held requests and those that follow.
func (ps *PushService) Release() {
	ps.mu.Lock()
	if ps.held != nil {
		close(ps.held)
		ps.held = nil
	}
	ps.mu.Unlock()
}

// Arrived is how many requests reached the service, held ones included.
func (ps *PushService) Arrived() int { ps.mu.Lock(); defer ps.mu.Unlock(); return ps.arrived }

func (ps *PushService) serve(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimPrefix(r.URL.Path, "/wpush/v2/")
	ps.mu.Lock()
	d := ps.devices[id]
	ps.arrived++
	held := ps.held
	ps.mu.Unlock()
	if held != nil {
		select {
		case <-held:
		case <-r.Context().Done():
			return
		}
	}
	if r.Method != http.MethodPost || d == nil {
		http.Error(w, "no such subscription", http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 8192))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if err := ps.check(r, body); err != nil {
		ps.t.Errorf("push service: %v", err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	plain, err := d.decrypt(body)
	if err != nil {
		ps.t.Errorf("push service: the device cannot decrypt the push: %v", err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	ps.mu.Lock()
	if q := ps.answers[id]; len(q) > 0 {
		ps.answers[id] = q[1:]
		ps.mu.Unlock()
		if q[0].RetryAfter != "" {
			w.Header().Set("Retry-After", q[0].RetryAfter)
		}
		w.WriteHeader(q[0].Status)
		return
	}
	ps.got = append(ps.got, Push{Device: id, Payload: plain, Header: r.Header.Clone(), At: time.Now()})
	ps.mu.Unlock()
	select {
	case ps.notify <- struct{}{}:
	default:
	}
	w.Header().Set("Location", ps.URL+"/message/"+id)
	w.WriteHeader(http.StatusCreated)
}

// check holds a request to RFC 8030 and RFC 8292: a TTL, the aes128gcm coding, and a VAPID
// Authorization whose JWT verifies with its k and names this origin, a sub and an exp at most
// 24 hours ahead.
func (ps *PushService) check(r *http.Request, body []byte) error {
	if _, err := strconv.Atoi(r.Header.Get("TTL")); err != nil {
		return fmt.Errorf("TTL header %q is not a number", r.Header.Get("TTL"))
	}
	if ce := r.Header.Get("Content-Encoding"); ce != "aes128gcm" {
		return fmt.Errorf("Content-Encoding %q, want aes128gcm", ce)
	}
	if len(body) > 4096 {
		return fmt.Errorf("a body of %d bytes is over 4096", len(body))
	}
	authz := r.Header.Get("Authorization")
	if !strings.HasPrefix(authz, "vapid ") {
		return fmt.Errorf("Authorization %q is not vapid", authz)
	}
	params := map[string]string{}
	for _, p := range strings.Split(strings.TrimPrefix(authz, "vapid "), ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		params[k] = v
	}
	ps.mu.Lock()
	if ps.vapidKey == "" {
		ps.vapidKey = params["k"]
	}
	want := ps.vapidKey
	ps.mu.Unlock()
	if params["k"] != want {
		return fmt.Errorf("signed with key %q, want %q", params["k"], want)
	}
	claims, err := verifyES256(params["t"], params["k"])
	if err != nil {
		return err
	}
	if aud, _ := claims["aud"].(string); aud != ps.URL {
		return fmt.Errorf("JWT aud %q, want this push service's origin %q", aud, ps.URL)
	}
	exp, _ := claims["exp"].(float64)
	if left := time.Until(time.Unix(int64(exp), 0)); left <= 0 || left > 24*time.Hour {
		return fmt.Errorf("JWT exp is %v from now, want within 24 hours", left)
	}
	if sub, _ := claims["sub"].(string); !strings.HasPrefix(sub, "mailto:") && !strings.HasPrefix(sub, "https:") && !strings.HasPrefix(sub, "http:") {
		return fmt.Errorf("JWT sub %q is neither a mailto: nor a URL", sub)
	}
	return nil
}

// verifyES256 checks a compact JWS with ES256 against the uncompressed P-256 key k and returns
// its claims.
func verifyES256(token, k string) (map[string]any, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, errors.New("the JWT has not three parts")
	}
	dec := base64.RawURLEncoding.DecodeString
	hdr, err1 := dec(parts[0])
	payload, err2 := dec(parts[1])
	sig, err3 := dec(parts[2])
	raw, err4 := dec(k)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return nil, fmt.Errorf("JWT or key is not base64url: %w", err)
	}
	var h struct{ Alg string }
	if json.Unmarshal(hdr, &h); h.Alg != "ES256" || len(sig) != 64 {
		return nil, fmt.Errorf("JWT header %s with a %d-byte signature, want ES256 and 64 bytes", hdr, len(sig))
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), raw)
	if err != nil {
		return nil, fmt.Errorf("VAPID key: %w", err)
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(pub, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return nil, errors.New("the JWT's signature does not verify with the VAPID key")
	}
	var claims map[string]any
	if err := json.Unmarshal(payload, &claims); err != nil {
		return nil, fmt.Errorf("JWT claims: %w", err)
	}
	return claims, nil
}

// hkdfSHA256 is RFC 5869 with SHA-256 for outputs of at most 32 bytes: one HMAC to extract,
// one to expand.
func hkdfSHA256(salt, ikm, info []byte, n int) []byte {
	mac := func(key []byte, parts ...[]byte) []byte {
		h := hmac.New(sha256.New, key)
		for _, p := range parts {
			h.Write(p)
		}
		return h.Sum(nil)
	}
	prk := mac(salt, ikm)
	return mac(prk, info, []byte{1})[:n]
}

// decrypt opens an aes128gcm body (RFC 8188) encrypted for the device (RFC 8291 §3.4).
func (d *PushDevice) decrypt(body []byte) ([]byte, error) {
	if len(body) < 21 {
		return nil, errors.New("body shorter than the aes128gcm header")
	}
	salt, rs, idlen := body[:16], binary.BigEndian.Uint32(body[16:20]), int(body[20])
	if idlen != 65 || len(body) < 21+idlen+17 {
		return nil, fmt.Errorf("keyid of %d bytes, want the server's 65-byte public key", idlen)
	}
	asPublic, record := body[21:21+idlen], body[21+idlen:]
	if uint32(len(record)) > rs {
		return nil, fmt.Errorf("a record of %d bytes is over rs %d: more than one record", len(record), rs)
	}
	as, err := ecdh.P256().NewPublicKey(asPublic)
	if err != nil {
		return nil, fmt.Errorf("keyid: %w", err)
	}
	secret, err := d.priv.ECDH(as)
	if err != nil {
		return nil, err
	}
	uaPublic := d.priv.PublicKey().Bytes()
	info := append(append([]byte("WebPush: info\x00"), uaPublic...), asPublic...)
	ikm := hkdfSHA256(d.auth, secret, info, 32)
	cek := hkdfSHA256(salt, ikm, []byte("Content-Encoding: aes128gcm\x00"), 16)
	nonce := hkdfSHA256(salt, ikm, []byte("Content-Encoding: nonce\x00"), 12)
	block, err := aes.NewCipher(cek)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	plain, err := gcm.Open(nil, nonce, record, nil)
	if err != nil {
		return nil, fmt.Errorf("AES-GCM: %w", err)
	}
	plain = bytes.TrimRight(plain, "\x00")
	if len(plain) == 0 || plain[len(plain)-1] != 0x02 {
		return nil, errors.New("the record does not end with the last-record delimiter 0x02")
	}
	return plain[:len(plain)-1], nil
}

// PushDeviceFromKeys is a device with a given private key and secret (the RFC 8291 example),
// for decrypting a body made elsewhere.
func PushDeviceFromKeys(priv, auth []byte) (*PushDevice, error) {
	k, err := ecdh.P256().NewPrivateKey(priv)
	if err != nil {
		return nil, err
	}
	return &PushDevice{priv: k, auth: auth}, nil
}

// Decrypt opens a body encrypted for the device.
func (d *PushDevice) Decrypt(body []byte) ([]byte, error) { return d.decrypt(body) }
