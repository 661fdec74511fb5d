package store

import (
	"time"

	"github.com/oklog/ulid/v2"
	"switchboard/store/kv"
)

// awaitingLookback is how far back the migration looks for sends still waiting for their
// receipt: the inbound recovery asks about a day of them, and a send's message is made at most
// a little before it goes out (a broadcast paced over hours).
const awaitingLookback = 3 * 24 * time.Hour

// indexAwaitingReceipts is the migration that fills bMsgAwaiting with the sends a file written
// before it existed holds as sent, so that their receipts, if they came while the server was
// being upgraded, are asked for too. It reads each workspace's messages of the last days only,
// by their ids' time.
func indexAwaitingReceipts(s *Store, tx *kv.Tx) error {
	if _, err := tx.CreateBucketIfNotExists(bMsgAwaiting); err != nil {
		return err
	}
	var from ulid.ULID
	if err := from.SetTime(ulid.Timestamp(s.Now().Add(-awaitingLookback))); err != nil {
		return err
	}
	msgs := tx.Bucket(bMessages)
	return tx.Bucket(bWorkspaces).ForEach(func(ws, _ []byte) error {
		if len(ws) != 16 {
			return nil
		}
		start := append(append([]byte(nil), ws...), from[:]...)
		c := msgs.Cursor()
		for k, v := c.Seek(start); k != nil && len(k) == 32 && string(k[:16]) == string(ws); k, v = c.Next() {
			var m Message
			if err := jsonUnmarshal(v, &m); err != nil {
				return err
			}
			if m.Outbound {
				if err := markAwaiting(tx, &m); err != nil {
					return err
				}
			}
		}
		return nil
	})
}
