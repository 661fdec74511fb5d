// Package keyfile keeps a server's secret keys in files beside its database (the session cookie
// keys, the Web Push key, the carrier accounts' sealing key), never in it: a backup of the
// database carries none of them. A key file is readable by its owner only (mode 0600) and
// appears whole or not at all, so two first starts cannot make two different keys.
package keyfile

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Read returns the n-byte key kept base64 in path. A missing file is an error that matches
// fs.ErrNotExist; a file that holds no n-byte key is an error saying what it is and how to
// start again (fix).
func Read(path string, n int, what, fix string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return decode(path, data, n, what, fix)
}

// Load returns the n-byte key kept base64 in path, making the file with fresh random bytes
// when there is none.
func Load(path string, n int, what, fix string) ([]byte, error) {
	data, _, err := LoadOrMake(path, func() ([]byte, error) {
		key := make([]byte, n)
		if _, err := rand.Read(key); err != nil {
			return nil, fmt.Errorf("make a %s: %w", what, err)
		}
		return []byte(base64.StdEncoding.EncodeToString(key) + "\n"), nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return decode(path, data, n, what, fix)
}

func decode(path string, data []byte, n int, what, fix string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(string(bytes.TrimSpace(data)))
	if err != nil || len(key) != n {
		return nil, fmt.Errorf("%s is not a %s (%d bytes, base64); %s", path, what, n, fix)
	}
	return key, nil
}

// LoadOrMake returns the contents of path, or, when there is no such file, makes them with
// make and puts them there first, mode 0600. The file is written and synced under a temporary
// name, then linked to path, which fails if path exists — so two first starts cannot race: the
// loser reads the winner's file. made reports whether this call wrote it.
func LoadOrMake(path string, make func() ([]byte, error)) (data []byte, made bool, err error) {
	data, err = os.ReadFile(path)
	if err == nil {
		return data, false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, false, fmt.Errorf("read %s: %w", path, err)
	}
	if data, err = make(); err != nil {
		return nil, false, err
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return nil, false, fmt.Errorf("create %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	err = f.Chmod(0o600)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, false, fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Link(tmp, path); errors.Is(err, fs.ErrExist) {
		data, err = os.ReadFile(path) // another start made it first
		return data, false, err
	} else if err != nil {
		return nil, false, fmt.Errorf("create %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync() // the new name survives a crash
		d.Close()
	}
	return data, true, nil
}
