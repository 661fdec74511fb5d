// Package keyfile keeps a random key in a file of the data directory, base64 on one line, mode
// 0600: made on first use, read after. The server's keys live beside the database and never in
// it, so a copy of the database (a backup) holds none of them.
package keyfile

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrMalformed is the error of a file that does not hold a key of the expected size.
var ErrMalformed = errors.New("not a key file")

// Load reads the size-byte key of path, or makes it when the file does not exist: created with
// O_EXCL, so two starts cannot race (the second reads what the first wrote), and fsynced before
// it is used.
func Load(path string, size int) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err == nil {
		key, err := base64.StdEncoding.DecodeString(string(bytes.TrimSpace(data)))
		if err != nil || len(key) != size {
			return nil, fmt.Errorf("%s: %w (%d bytes, base64)", path, ErrMalformed, size)
		}
		return key, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	key := make([]byte, size)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("make %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return Load(path, size) // another start made it first
	}
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	_, err = f.WriteString(base64.StdEncoding.EncodeToString(key) + "\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return key, nil
}
