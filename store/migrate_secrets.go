package store

import (
	"errors"
	"regexp"
	"strings"

	"switchboard/store/kv"
)

// linkTokenRe finds a reset or invitation link's token in an e-mail body written before links
// were sealed.
var linkTokenRe = regexp.MustCompile(`sb[ir]_[A-Za-z0-9_-]{43}`)

var errNeedSecretKey = errors.New("two-factor secrets and e-mailed links are to be sealed with the data directory's secret key, and none was given")

// migrateSealSecrets seals the two-factor secrets and the tokens of links waiting in the mail
// outbox that earlier versions kept in clear. With no key given (a random one for
// this process) it refuses when there is anything to seal: sealed with that key, it would be
// lost when the process ends.
func migrateSealSecrets(s *Store, tx *kv.Tx) error {
	type change struct {
		k []byte
		v any
	}
	var changes []change
	err := tx.Bucket(bTwoFactor).ForEach(func(k, v []byte) error {
		var tf twoFactor
		if err := jsonUnmarshal(v, &tf); err != nil {
			return err
		}
		user, changed := idFromKey(k), false
		for _, f := range []*string{&tf.Secret, &tf.Pending} {
			if *f != "" && !isSealed(*f) {
				*f, changed = s.sealer.Load().seal(*f, totpPurpose(user)), true
			}
		}
		if changed {
			changes = append(changes, change{append([]byte(nil), k...), tf})
		}
		return nil
	})
	if err != nil {
		return err
	}
	err = tx.Bucket(bMail).ForEach(func(k, v []byte) error {
		var m Mail
		if err := jsonUnmarshal(v, &m); err != nil {
			return err
		}
		token := linkTokenRe.FindString(m.Body)
		if m.Link != "" || token == "" {
			return nil
		}
		m.Body = strings.ReplaceAll(m.Body, token, linkMarker)
		m.Link = s.sealer.Load().seal(token, mailPurpose(m.ID))
		changes = append(changes, change{append([]byte(nil), k...), m})
		return nil
	})
	if err != nil {
		return err
	}
	if len(changes) > 0 && s.sealer.Load().ephemeral {
		return errNeedSecretKey
	}
	for _, c := range changes {
		b := tx.Bucket(bTwoFactor)
		if _, ok := c.v.(Mail); ok {
			b = tx.Bucket(bMail)
		}
		if err := putJSON(b, c.k, c.v); err != nil {
			return err
		}
	}
	return nil
}
