package web

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gorilla/securecookie"
	bolt "go.etcd.io/bbolt"
)

// sessionCookieOf returns the browser's session cookie for the test server.
func (e *uiEnv) sessionCookieOf(t *testing.T, c *http.Client) *http.Cookie {
	t.Helper()
	u, _ := url.Parse(e.srv.URL)
	for _, ck := range c.Jar.Cookies(u) {
		if ck.Name == sessionCookie {
			return ck
		}
	}
	t.Fatal("expected a session cookie")
	return nil
}

// withCookie is a fresh browser holding only ck: a copy of a cookie taken elsewhere.
func (e *uiEnv) withCookie(t *testing.T, ck *http.Cookie) *http.Client {
	c := e.browser(t)
	u, _ := url.Parse(e.srv.URL)
	c.Jar.SetCookies(u, []*http.Cookie{{Name: ck.Name, Value: ck.Value, Path: "/"}})
	return c
}

func (e *uiEnv) signedIn(t *testing.T, c *http.Client) bool {
	t.Helper()
	res, _ := e.send(t, c, "GET", "/inbox", nil)
	switch {
	case res.StatusCode == http.StatusOK:
		return true
	case res.StatusCode == http.StatusSeeOther && strings.HasPrefix(res.Header.Get("Location"), "/login"):
		return false
	}
	t.Fatalf("GET /inbox: unexpected %d to %q", res.StatusCode, res.Header.Get("Location"))
	return false
}

// TestSignOutEndsCopiedCookie: sign-out deletes the session on the server, so a copy of the
// cookie taken before signs no one in afterwards.
func TestSignOutEndsCopiedCookie(t *testing.T) {
	t.Parallel()
	e := newUIEnv(t)
	b := e.signIn(t, e.alice)
	thief := e.withCookie(t, e.sessionCookieOf(t, b))
	if !e.signedIn(t, thief) {
		t.Fatal("expected the copied cookie to work while the session lasts")
	}
	wantRedirect(t, first(e.send(t, b, "POST", "/logout", url.Values{})), "/login")
	if e.signedIn(t, thief) {
		t.Fatal("the copied cookie still signs in after sign-out")
	}
	if rows, _ := e.st.UserSessions(e.alice.ID); len(rows) != 0 {
		t.Fatalf("expected no stored session after sign-out, got %d", len(rows))
	}
}

func first(res *http.Response, _ string) *http.Response { return res }

// TestBackupCannotForgeSession: a backup of the database holds neither the cookie keys nor a
// session's token, so whoever holds one can neither sign a cookie nor revive a session.
func TestBackupCannotForgeSession(t *testing.T) {
	t.Parallel()
	e := newUIEnv(t)
	b := e.signIn(t, e.alice)
	ck := e.sessionCookieOf(t, b)
	var buf bytes.Buffer
	if _, err := e.st.Backup(&buf, nil); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "backup.db")
	if err := writeFile(path, buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Every value of the backup that could be a 64-byte hash key and a 32-byte block key.
	var candidates [][]byte
	err = db.View(func(tx *bolt.Tx) error {
		var walk func(b *bolt.Bucket) error
		walk = func(b *bolt.Bucket) error {
			return b.ForEach(func(k, v []byte) error {
				if v == nil {
					return walk(b.Bucket(k))
				}
				if len(v) >= 96 {
					candidates = append(candidates, bytes.Clone(v))
				}
				return nil
			})
		}
		return tx.ForEach(func(_ []byte, b *bolt.Bucket) error { return walk(b) })
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range candidates {
		for off := 0; off+96 <= len(v); off += 96 {
			codec := securecookie.New(v[off:off+64], v[off+64:off+96])
			var values map[any]any
			if codec.Decode(sessionCookie, ck.Value, &values) == nil {
				t.Fatal("the backup holds the key that signs session cookies: a cookie for any user can be made from it")
			}
		}
	}
	// The token the cookie carries is nowhere in the backup either (only its SHA-256 is).
	var values map[any]any
	if err := securecookie.DecodeMulti(sessionCookie, ck.Value, &values, e.sess.cookies.Codecs...); err != nil {
		t.Fatal(err)
	}
	token, _ := values["sid"].(string)
	if token == "" || bytes.Contains(buf.Bytes(), []byte(token)) {
		t.Fatal("expected the cookie to carry a token that the database does not hold")
	}
	// A cookie made with other keys is refused, whatever it claims.
	forger := securecookie.New(securecookie.GenerateRandomKey(64), securecookie.GenerateRandomKey(32))
	forged, _ := forger.Encode(sessionCookie, map[any]any{"sid": token, "uid": e.alice.ID})
	if e.signedIn(t, e.withCookie(t, &http.Cookie{Name: sessionCookie, Value: forged})) {
		t.Fatal("a cookie signed with other keys signed in")
	}
}

// TestSessionKeysLiveOutsideTheDatabase: the keys are made once in a file of mode 0600 and
// read back on the next start, so sessions survive a restart; keys an older version kept in
// the database are deleted.
func TestSessionKeysLiveOutsideTheDatabase(t *testing.T) {
	t.Parallel()
	e := newUIEnv(t)
	if err := e.st.DB().Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("oauth_meta"))
		if err != nil {
			return err
		}
		return b.Put([]byte("session_keys"), bytes.Repeat([]byte{7}, 96))
	}); err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "session.key")
	s1, err := NewSessions(e.st, SessionConfig{KeyFile: keyFile})
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := statFile(keyFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("expected the key file with mode 0600, got %v %v", fi, err)
	}
	s2, err := NewSessions(e.st, SessionConfig{KeyFile: keyFile})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := securecookie.EncodeMulti(sessionCookie, map[any]any{"sid": "x"}, s1.cookies.Codecs...)
	if err != nil {
		t.Fatal(err)
	}
	var v map[any]any
	if err := securecookie.DecodeMulti(sessionCookie, enc, &v, s2.cookies.Codecs...); err != nil {
		t.Fatalf("expected the second start to read the same keys: %v", err)
	}
	_ = e.st.DB().View(func(tx *bolt.Tx) error {
		if tx.Bucket([]byte("oauth_meta")).Get([]byte("session_keys")) != nil {
			t.Error("expected the old keys deleted from the database")
		}
		return nil
	})
}

// TestSignInThrottleIsPerNetwork: failures from one network lock that network out, not the
// account's owner on another network.
func TestSignInThrottleIsPerNetwork(t *testing.T) {
	t.Parallel()
	e := newUIEnv(t)
	h := e.srv.Config.Handler
	post := func(remote, password string) int {
		form := url.Values{"email": {e.alice.Email}, "password": {password}}
		req := httptest.NewRequest("POST", "/login", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.RemoteAddr = remote
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	for i := range 5 {
		if code := post("203.0.113.9:4000", "wrong password"); code != http.StatusUnauthorized {
			t.Fatalf("wrong password %d: %d, want 401", i+1, code)
		}
	}
	if code := post("203.0.113.200:4000", uiPassword); code != http.StatusTooManyRequests {
		t.Fatalf("the right password from the attacker's /24: %d, want 429", code)
	}
	if code := post("198.51.100.7:4000", uiPassword); code != http.StatusSeeOther {
		t.Fatalf("the owner from another network: %d, want 303 (signed in)", code)
	}
	if code := post("[2001:db8:1:2::5]:4000", uiPassword); code != http.StatusSeeOther {
		t.Fatalf("the owner over IPv6: %d, want 303", code)
	}
}

func TestClientNetwork(t *testing.T) {
	for remote, want := range map[string]string{
		"192.0.2.77:1": "192.0.2.0/24", "[2001:db8:a:b:c::1]:1": "2001:db8:a:b::/64",
		"[::ffff:192.0.2.9]:1": "192.0.2.0/24",
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = remote
		if got := clientNetwork(r); got != want {
			t.Errorf("clientNetwork(%s) = %s, want %s", remote, got, want)
		}
	}
}

func writeFile(path string, data []byte) error  { return os.WriteFile(path, data, 0o600) }
func statFile(path string) (os.FileInfo, error) { return os.Stat(path) }
