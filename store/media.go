package store

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	berrors "go.etcd.io/bbolt/errors"
	"switchboard/store/kv"
)

// mediaChunk is the largest piece of a file kept in one value: bbolt stores a large value in
// contiguous overflow pages, and pieces of 1 MiB keep the free-page runs it needs short.
const mediaChunk = 1 << 20

// MediaPath is the path prefix media are served under: /media/{token}/{file name}.
const MediaPath = "/media/"

// Upload is one accepted file (its type already sniffed from its bytes) to keep with a message.
type Upload struct {
	Name string
	Type string
	Data []byte
}

// MediaRecord describes a kept file; its bytes are in bMediaChunks.
type MediaRecord struct {
	Token       string    `json:"token"`
	WorkspaceID string    `json:"workspaceId"`
	OwnerID     string    `json:"ownerId"` // the message (or broadcast) it belongs to
	Name        string    `json:"name"`
	Type        string    `json:"type"`
	Size        int64     `json:"size"`
	Source      string    `json:"source,omitempty"` // the carrier URL it was fetched from
	CreatedAt   time.Time `json:"createdAt"`
}

// SetPublicURL sets the absolute URL (no trailing slash) that kept media's URLs start with, so
// that carriers and integrators can fetch them; "" leaves them as paths (/media/…).
func (s *Store) SetPublicURL(u string) { s.mediaBase.Store(strings.TrimRight(u, "/")) }

// MediaURL is the URL a kept file is served at.
func (s *Store) MediaURL(token, name string) string {
	base, _ := s.mediaBase.Load().(string)
	return base + MediaPath + token + "/" + url.PathEscape(name)
}

// MediaToken returns the token of a URL that points at a kept file (its path is
// /media/{token}/{name}), or "".
func MediaToken(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	rest, ok := strings.CutPrefix(u.Path, MediaPath)
	if !ok {
		return ""
	}
	token, _, ok := strings.Cut(rest, "/")
	if !ok || token == "" {
		return ""
	}
	return token
}

// newMediaToken makes a token of 128 random bits: it is the only key to a file served without
// sign-in, so it comes from crypto/rand.
func newMediaToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (it panics if the system's source does)
	return base64.RawURLEncoding.EncodeToString(b)
}

func mediaOwnerPrefix(ws, owner string) []byte { return wsKey(ws, owner) }

// putMedia keeps up as a file of the owner (a message or a broadcast) and returns its URL,
// inside the caller's transaction.
func (s *Store) putMedia(tx *kv.Tx, ws, owner, source string, up Upload) (string, error) {
	rec := MediaRecord{Token: newMediaToken(), WorkspaceID: ws, OwnerID: owner, Name: up.Name, Type: up.Type,
		Size: int64(len(up.Data)), Source: source, CreatedAt: s.Now()}
	if err := putJSON(tx.Bucket(bMedia), []byte(rec.Token), rec); err != nil {
		return "", err
	}
	// A bucket of its own per file: a large value lives in its leaf, and bbolt rewrites a whole
	// leaf when a key is added to it, so files sharing leaves would be copied again with every
	// new one. Alone, a file is written once, and deleting it frees its pages at once.
	chunks, err := tx.Bucket(bMediaChunks).CreateBucket([]byte(rec.Token))
	if err != nil {
		return "", fmt.Errorf("store: media %s: %w", rec.Token, err)
	}
	chunks.SetFillPercent(1) // written once, in order
	for seq, off := uint32(0), 0; off < len(up.Data); seq, off = seq+1, off+mediaChunk {
		end := min(off+mediaChunk, len(up.Data))
		if err := chunks.Put(binary.BigEndian.AppendUint32(nil, seq), up.Data[off:end]); err != nil {
			return "", err
		}
	}
	key := append(mediaOwnerPrefix(ws, owner), rec.Token...)
	if err := tx.Bucket(bMediaOwner).Put(key, nil); err != nil {
		return "", err
	}
	return s.MediaURL(rec.Token, rec.Name), nil
}

// putUploads keeps every upload for owner and returns their URLs in order.
func (s *Store) putUploads(tx *kv.Tx, ws, owner string, ups []Upload) ([]string, error) {
	urls := make([]string, 0, len(ups))
	for _, up := range ups {
		u, err := s.putMedia(tx, ws, owner, "", up)
		if err != nil {
			return nil, err
		}
		urls = append(urls, u)
	}
	return urls, nil
}

// deleteOwnerMedia deletes every file kept for owner (a message being deleted) with its bytes.
func deleteOwnerMedia(tx *kv.Tx, ws, owner string) error {
	idx := tx.Bucket(bMediaOwner)
	p := mediaOwnerPrefix(ws, owner)
	var doomed [][]byte
	c := idx.Cursor()
	for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
		doomed = append(doomed, bytes.Clone(k))
	}
	for _, k := range doomed {
		token := k[len(p):]
		if err := deleteMediaBytes(tx, token); err != nil {
			return err
		}
		if err := tx.Bucket(bMedia).Delete(token); err != nil {
			return err
		}
		if err := idx.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

func deleteMediaBytes(tx *kv.Tx, token []byte) error {
	err := tx.Bucket(bMediaChunks).DeleteBucket(token)
	if errors.Is(err, berrors.ErrBucketNotFound) {
		return nil
	}
	return err
}

// MediaFile returns a kept file and its bytes by token; an unknown token is ErrNotFound.
func (s *Store) MediaFile(token string) (MediaRecord, []byte, error) {
	var rec MediaRecord
	var data []byte
	err := s.view(func(tx *kv.Tx) error {
		ok, err := getJSON(tx.Bucket(bMedia), []byte(token), &rec)
		if err != nil {
			return err
		}
		if !ok || token == "" {
			return errorf(ErrNotFound, "media not found")
		}
		data = make([]byte, 0, rec.Size)
		if chunks := tx.Bucket(bMediaChunks).Bucket([]byte(token)); chunks != nil {
			if err := chunks.ForEach(func(_, v []byte) error { data = append(data, v...); return nil }); err != nil {
				return err
			}
		}
		if int64(len(data)) != rec.Size {
			return fmt.Errorf("store: media %s: %d of %d bytes present", token, len(data), rec.Size)
		}
		return nil
	})
	return rec, data, err
}

// MediaInfo describes the kept files behind urls (those that point at one), by token.
func (s *Store) MediaInfo(urls []string) (map[string]MediaRecord, error) {
	out := map[string]MediaRecord{}
	err := s.view(func(tx *kv.Tx) error {
		for _, u := range urls {
			token := MediaToken(u)
			if token == "" {
				continue
			}
			var rec MediaRecord
			if ok, err := getJSON(tx.Bucket(bMedia), []byte(token), &rec); err != nil {
				return err
			} else if ok {
				out[token] = rec
			}
		}
		return nil
	})
	return out, err
}

// MediaBytes reports how many files are kept and their total size (metrics, benchmarks).
func (s *Store) MediaBytes() (files int, size int64, err error) {
	err = s.view(func(tx *kv.Tx) error {
		return tx.Bucket(bMedia).ForEach(func(_, v []byte) error {
			var rec MediaRecord
			if err := jsonUnmarshal(v, &rec); err != nil {
				return err
			}
			files++
			size += rec.Size
			return nil
		})
	})
	return files, size, err
}
