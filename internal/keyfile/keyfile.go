// Package keyfile keeps secret keys in files of the data directory, beside the database and
// never in it, so that a copy of the database (a backup) holds nothing that can use them. A key
// file holds base64 of the key and is readable by its owner only (mode 0600).
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

// Read returns the n-byte key in path. A missing file is an error that matches fs.ErrNotExist;
// a file that holds no n-byte key is an error saying what it is and how to start again (fix).
func Read(path string, n int, what, fix string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	key, err := base64.StdEncoding.DecodeString(string(bytes.TrimSpace(data)))
	if err != nil || len(key) != n {
		return nil, fmt.Errorf("%s is not a %s (%d bytes, base64); %s", path, what, n, fix)
	}
	return key, nil
}

// Load returns the n-byte key in path, making the file with fresh random bytes when there is
// none: created with O_EXCL and mode 0600, so that two starts cannot make two different keys.
func Load(path string, n int, what, fix string) ([]byte, error) {
	key, err := Read(path, n, what, fix)
	if !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	key = make([]byte, n)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("make a %s: %w", what, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return Read(path, n, what, fix) // another start made it first
	}
	if err != nil {
		return nil, fmt.Errorf("create the %s: %w", what, err)
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
		return nil, fmt.Errorf("write the %s: %w", what, err)
	}
	return key, nil
}
