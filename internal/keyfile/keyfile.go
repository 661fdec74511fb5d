// Package keyfile keeps a server's secret keys in files beside its database (the session
// cookie keys, the Web Push key), never in it: a backup of the database carries none of them.
package keyfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Load returns the contents of path, or, when there is no such file, makes them with create and
// puts them there first, mode 0600. The file appears whole or not at all — written and synced
// under a temporary name, then linked to path, which fails if path exists — so two first starts
// cannot race: the loser reads the winner's file. made reports whether this call wrote it.
func Load(path string, create func() ([]byte, error)) (data []byte, made bool, err error) {
	data, err = os.ReadFile(path)
	if err == nil {
		return data, false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, false, fmt.Errorf("read %s: %w", path, err)
	}
	if data, err = create(); err != nil {
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
