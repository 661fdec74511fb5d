package push

import (
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"strings"
	"testing"

	"switchboard/internal/testutil"
)

func b64(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// RFC 8291 §5's worked example: its keys, secret and salt give its body byte for byte, and
// the browser's side (the test's own decryption) reads the plaintext back.
func TestEncryptMatchesRFC8291Example(t *testing.T) {
	as, err := ecdh.P256().NewPrivateKey(b64(t, "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"))
	if err != nil {
		t.Fatal(err)
	}
	uaPublic := b64(t, "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4")
	auth := b64(t, "BTBZMqHH6r4Tts7J_aSIgg")
	body, err := encryptWith([]byte("When I grow up, I want to be a watermelon"), uaPublic, auth, as, b64(t, "DGv6ra1nlYgDCS1FRnbzlw"), 0)
	if err != nil {
		t.Fatal(err)
	}
	want := "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
	if got := base64.RawURLEncoding.EncodeToString(body); got != want {
		t.Fatalf("body\n got %s\nwant %s", got, want)
	}
	ua, err := testutil.PushDeviceFromKeys(b64(t, "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"), auth)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := ua.Decrypt(body)
	if err != nil || string(plain) != "When I grow up, I want to be a watermelon" {
		t.Fatalf("decrypted %q, %v", plain, err)
	}
}

// A real push is padded to a multiple of 128 bytes, so the push service learns little of a
// text's length, and stays within the 4096 bytes push services take.
func TestEncryptPadsAndBounds(t *testing.T) {
	ua, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	auth := make([]byte, 16)
	for _, n := range []int{1, 100, 127, 128, 1000, MaxPayload} {
		body, err := encrypt([]byte(strings.Repeat("x", n)), ua.PublicKey().Bytes(), auth)
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		record := len(body) - headerSize - 16
		if len(body) > 4096 || (n < MaxPayload-padTo && record%padTo != 0) {
			t.Fatalf("%d bytes give a body of %d (record %d): want ≤ 4096 and the record a multiple of %d", n, len(body), record, padTo)
		}
	}
	if _, err := encrypt(make([]byte, MaxPayload+1), ua.PublicKey().Bytes(), auth); err == nil {
		t.Fatal("a payload over MaxPayload was encrypted")
	}
	if _, err := encrypt([]byte("x"), []byte("not a key"), auth); err == nil {
		t.Fatal("a payload was encrypted for a key that is not a P-256 point")
	}
}
