package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
)

// SecretPrefix starts every Standard Webhooks signing secret.
const SecretPrefix = "whsec_"

// Sign returns the webhook-signature header value for one delivery: "v1," + base64 of
// HMAC-SHA256 over "id.timestamp.body", keyed with the secret's base64-decoded bytes after whsec_
// (Standard Webhooks).
func Sign(secret, id string, timestamp int64, body []byte) (string, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil || len(key) == 0 {
		return "", errors.New("webhooks: the subscription's secret is not whsec_ + base64")
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id))
	mac.Write([]byte{'.'})
	mac.Write([]byte(strconv.FormatInt(timestamp, 10)))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}
