package keyfile_test

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"switchboard/internal/keyfile"
)

func TestLoadMakesOnceAndKeeps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.key")
	var wg sync.WaitGroup
	got := make([]string, 8)
	made := make([]bool, 8)
	for i := range got {
		wg.Go(func() {
			data, m, err := keyfile.Load(path, func() ([]byte, error) { return []byte{byte('a' + i)}, nil })
			if err != nil {
				t.Error(err)
			}
			got[i], made[i] = string(data), m
		})
	}
	wg.Wait()
	n := 0
	for i := range got {
		if got[i] != got[0] {
			t.Fatalf("concurrent first starts read different keys: %q", got)
		}
		if made[i] {
			n++
		}
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 || n != 1 {
		t.Fatalf("file %v mode %v, written by %d starts; want one 0600 file written once", err, info.Mode().Perm(), n)
	}
	if _, _, err := keyfile.Load(filepath.Join(t.TempDir(), "x"), func() ([]byte, error) { return nil, errors.New("no entropy") }); err == nil {
		t.Fatal("a failing create was not reported")
	}
}
