package store

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
	"switchboard/store/kv"
)

// Two-factor sign-in is TOTP (RFC 6238): 6 digits, a 30-second step, SHA-1 (what every
// authenticator app reads from an otpauth:// URI), one step of drift either way. A code is
// accepted once: the step it matched is kept and no code of that step or an earlier one is
// taken again. Ten single-use recovery codes are shown once and kept as SHA-256 hashes.
const (
	totpPeriod    = 30
	recoveryCodes = 10
)

var totpOpts = totp.ValidateOpts{Period: totpPeriod, Skew: 0, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// twoFactor is a user's two-factor record (bucket user_two_factor, keyed by user id). The
// secrets are sealed with the installation's secret key, never kept in clear.
type twoFactor struct {
	Secret   string   `json:"secret,omitempty"`  // sealed base32; set once confirmed
	Pending  string   `json:"pending,omitempty"` // sealed base32; an enrolment awaiting its first code
	LastStep int64    `json:"lastStep,omitempty"`
	Recovery []string `json:"recovery,omitempty"` // hex SHA-256 of the unused recovery codes
}

// TwoFactorRequired reports whether a superuser requires two-factor for every user.
func (s *Store) TwoFactorRequired() (bool, error) {
	on := false
	err := s.view(func(tx *kv.Tx) error {
		on = tx.Bucket(bMeta).Get(metaRequire2FA) != nil
		return nil
	})
	return on, err
}

// SetTwoFactorRequired turns the requirement on or off. Turned on, it takes hold at once:
// the signed-in sessions of users without two-factor go to enrolment (requireEnrolment).
func (s *Store) SetTwoFactorRequired(on bool) error {
	return s.update(func(tx *wtx) error {
		if !on {
			return tx.Bucket(bMeta).Delete(metaRequire2FA)
		}
		if err := tx.Bucket(bMeta).Put(metaRequire2FA, []byte{1}); err != nil {
			return err
		}
		return requireEnrolment(tx.Tx)
	})
}

// RequireEnrolment sends every signed-in session of a user without two-factor to enrolment:
// they can do nothing else until enrolled. The -require-2fa flag calls it at start.
func (s *Store) RequireEnrolment() error {
	return s.update(func(tx *wtx) error { return requireEnrolment(tx.Tx) })
}

func requireEnrolment(tx *kv.Tx) error {
	b := tx.Bucket(bSessions)
	has := map[string]bool{} // user -> has two-factor
	type change struct {
		k   []byte
		row Session
	}
	var changes []change
	err := b.ForEach(func(k, v []byte) error {
		var row Session
		if err := jsonUnmarshal(v, &row); err != nil {
			return err
		}
		if row.Stage != "" {
			return nil
		}
		on, ok := has[row.UserID]
		if !ok {
			u, err := getUser(tx, row.UserID)
			on = err == nil && u.TwoFactor
			has[row.UserID] = on
		}
		if !on {
			row.Stage = SessionStageEnrol
			changes = append(changes, change{bytes.Clone(k), row})
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, c := range changes {
		if err := putJSON(b, c.k, c.row); err != nil {
			return err
		}
	}
	return nil
}

// StartTwoFactor begins an enrolment for userID: a new secret, pending until ConfirmTwoFactor
// sees a first code from it. It returns the otpauth:// URI (for the QR code) and the secret (for
// typing in). A user who has two-factor already is ErrConflict.
func (s *Store) StartTwoFactor(userID, issuer string) (uri, secret string, err error) {
	err = s.update(func(tx *wtx) error {
		u, err := getUser(tx.Tx, userID)
		if err != nil {
			return tx.refuse(err)
		}
		var tf twoFactor
		if _, err := getJSON(tx.Bucket(bTwoFactor), idKey(userID), &tf); err != nil {
			return err
		}
		if tf.Secret != "" {
			return tx.refuse(errorf(ErrConflict, "two-factor is already on"))
		}
		key, err := totp.Generate(totp.GenerateOpts{Issuer: issuer, AccountName: u.Email, Period: totpPeriod,
			Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
		if err != nil {
			return err
		}
		tf.Pending, uri, secret = s.sealer.Load().seal(key.Secret(), totpPurpose(userID)), key.URL(), key.Secret()
		return putJSON(tx.Bucket(bTwoFactor), idKey(userID), tf)
	})
	return uri, secret, err
}

// matchStep returns the TOTP step code matches for secret at now, within one step of drift;
// 0 when none does.
func matchStep(secret, code string, now time.Time) int64 {
	code = strings.TrimSpace(code)
	if len(code) != 6 {
		return 0
	}
	step := now.Unix() / totpPeriod
	for _, d := range []int64{0, -1, 1} {
		want, err := totp.GenerateCodeCustom(secret, time.Unix((step+d)*totpPeriod, 0), totpOpts)
		if err == nil && subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			return step + d
		}
	}
	return 0
}

var errBadCode = ValidationError{{"code", "is not the current code of your authenticator app"}}

// ConfirmTwoFactor finishes an enrolment with a first code from the app: two-factor is on from
// then, and the ten recovery codes are returned, this once.
func (s *Store) ConfirmTwoFactor(userID, code string, now time.Time) ([]string, error) {
	codes := make([]string, recoveryCodes)
	hashes := make([]string, recoveryCodes)
	for i := range codes {
		codes[i] = newRecoveryCode()
		hashes[i] = recoveryHash(codes[i])
	}
	err := s.update(func(tx *wtx) error {
		u, err := getUser(tx.Tx, userID)
		if err != nil {
			return tx.refuse(err)
		}
		var tf twoFactor
		if _, err := getJSON(tx.Bucket(bTwoFactor), idKey(userID), &tf); err != nil {
			return err
		}
		if tf.Pending == "" {
			return tx.refuse(errorf(ErrConflict, "start the set-up again: no enrolment is waiting"))
		}
		pending, err := s.sealer.Load().open(tf.Pending, totpPurpose(userID))
		if err != nil {
			return tx.refuse(errorf(ErrConflict, "start the set-up again: the waiting enrolment cannot be read"))
		}
		step := matchStep(pending, code, now)
		if step == 0 {
			return tx.refuse(errBadCode)
		}
		tf = twoFactor{Secret: tf.Pending, LastStep: step, Recovery: hashes}
		if err := putJSON(tx.Bucket(bTwoFactor), idKey(userID), tf); err != nil {
			return err
		}
		u.TwoFactor, u.UpdatedAt = true, s.Now()
		return putJSON(tx.Bucket(bUsers), idKey(u.ID), u)
	})
	if err != nil {
		return nil, err
	}
	return codes, nil
}

// CheckSecondFactor takes a code at sign-in: a current TOTP code not used before, or an unused
// recovery code, which is used up. recovery tells which it was; a wrong code is a
// ValidationError on "code".
func (s *Store) CheckSecondFactor(userID, code string, now time.Time) (recovery bool, err error) {
	err = s.update(func(tx *wtx) error {
		recovery = false
		var tf twoFactor
		ok, err := getJSON(tx.Bucket(bTwoFactor), idKey(userID), &tf)
		if err != nil {
			return err
		}
		if !ok || tf.Secret == "" {
			return tx.refuse(errorf(ErrConflict, "two-factor is not on for this account"))
		}
		secret, err := s.sealer.Load().open(tf.Secret, totpPurpose(userID))
		if err != nil {
			// The data directory's secret key is not the one the secret was sealed with: only a
			// recovery code, or an administrator's reset-2fa, gets this user in.
			secret = ""
		}
		if step := matchStep(secret, code, now); secret != "" && step != 0 {
			if step <= tf.LastStep {
				return tx.refuse(ValidationError{{"code", "was used already; wait for the next one"}})
			}
			tf.LastStep = step
			return putJSON(tx.Bucket(bTwoFactor), idKey(userID), tf)
		}
		h := recoveryHash(code)
		for i, r := range tf.Recovery {
			if subtle.ConstantTimeCompare([]byte(r), []byte(h)) == 1 {
				tf.Recovery = append(tf.Recovery[:i:i], tf.Recovery[i+1:]...)
				recovery = true
				return putJSON(tx.Bucket(bTwoFactor), idKey(userID), tf)
			}
		}
		return tx.refuse(errBadCode)
	})
	return recovery, err
}

// RecoveryCodesLeft is how many unused recovery codes userID has.
func (s *Store) RecoveryCodesLeft(userID string) (int, error) {
	var tf twoFactor
	err := s.view(func(tx *kv.Tx) error {
		_, err := getJSON(tx.Bucket(bTwoFactor), idKey(userID), &tf)
		return err
	})
	return len(tf.Recovery), err
}

// ResetTwoFactor turns two-factor off for userID (the user on their profile, or `admin
// reset-2fa` for a lost phone): the secret and recovery codes are deleted.
func (s *Store) ResetTwoFactor(userID string) error {
	return s.update(func(tx *wtx) error {
		u, err := getUser(tx.Tx, userID)
		if err != nil {
			return tx.refuse(err)
		}
		if err := tx.Bucket(bTwoFactor).Delete(idKey(userID)); err != nil {
			return err
		}
		u.TwoFactor, u.UpdatedAt = false, s.Now()
		return putJSON(tx.Bucket(bUsers), idKey(u.ID), u)
	})
}

// newRecoveryCode is 50 random bits as ten lower-case hex digits in two groups: xxxxx-xxxxx.
func newRecoveryCode() string {
	b := make([]byte, 5)
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	h := hex.EncodeToString(b)
	return h[:5] + "-" + h[5:]
}

// recoveryHash is the stored form of a recovery code; case, spaces and dashes do not matter.
func recoveryHash(code string) string {
	c := strings.ToLower(strings.NewReplacer("-", "", " ", "").Replace(strings.TrimSpace(code)))
	return hex.EncodeToString(HashToken("recovery:" + c))
}
