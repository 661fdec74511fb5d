package oauth

import (
	"encoding/json"
	"time"

	"switchboard/store/kv"
)

// Sweep deletes what has expired: codes, replay records, and grants whose refresh token
// expired (with their access tokens), so the buckets do not grow without bound.
func (p *Provider) Sweep() error {
	now := p.now().UTC()
	return p.s.Write(func(tx *kv.Tx) error {
		var dead [][]byte
		collect := func(b *kv.Bucket, expired func(v []byte) bool) {
			dead = dead[:0]
			_ = b.ForEach(func(k, v []byte) error {
				if expired(v) {
					dead = append(dead, append([]byte(nil), k...))
				}
				return nil
			})
		}
		for _, name := range [][]byte{bCodes, bUsedCodes, bUsedRefresh} {
			b := tx.Bucket(name)
			collect(b, func(v []byte) bool {
				var r struct {
					ExpiresAt time.Time `json:"expiresAt"`
				}
				return json.Unmarshal(v, &r) != nil || !now.Before(r.ExpiresAt)
			})
			for _, k := range dead {
				if err := b.Delete(k); err != nil {
					return err
				}
			}
		}
		var grants []string
		_ = tx.Bucket(bRefresh).ForEach(func(_, v []byte) error {
			var r refreshRecord
			if json.Unmarshal(v, &r) == nil && !now.Before(r.ExpiresAt) {
				grants = append(grants, r.GrantID)
			}
			return nil
		})
		for _, g := range grants {
			if err := p.revokeGrant(tx, g); err != nil {
				return err
			}
		}
		return nil
	})
}
