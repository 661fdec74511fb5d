package keyfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestLoadMakesOnceAndReadsAfter: the first Load makes a 0600 file; every later Load and Read,
// concurrent ones too, return the same key; a file of another size is refused with its fix.
func TestLoadMakesOnceAndReadsAfter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "carrier.key")
	if _, err := Read(path, 32, "carrier key file", "move it away"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Read before any Load: %v, want not exist", err)
	}
	keys := make([][]byte, 8)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Go(func() {
			k, err := Load(path, 32, "carrier key file", "move it away")
			if err != nil {
				t.Error(err)
			}
			keys[i] = k
		})
	}
	wg.Wait()
	for _, k := range keys[1:] {
		if len(k) != 32 || !bytes.Equal(k, keys[0]) {
			t.Fatalf("concurrent loads made different keys")
		}
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v (%v), want 0600", info.Mode().Perm(), err)
	}
	if k, err := Read(path, 32, "carrier key file", "move it away"); err != nil || !bytes.Equal(k, keys[0]) {
		t.Fatalf("Read after Load: %v", err)
	}
	if _, err := Load(path, 96, "session key file", "move it away to start again"); err == nil || !strings.Contains(err.Error(), "move it away to start again") {
		t.Fatalf("a key of another size: %v", err)
	}
}
func TestLoadOrMakeMakesOnceAndKeeps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.key")
	var wg sync.WaitGroup
	got := make([]string, 8)
	made := make([]bool, 8)
	for i := range got {
		wg.Go(func() {
			data, m, err := LoadOrMake(path, func() ([]byte, error) { return []byte{byte('a' + i)}, nil })
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
	if _, _, err := LoadOrMake(filepath.Join(t.TempDir(), "x"), func() ([]byte, error) { return nil, errors.New("no entropy") }); err == nil {
		t.Fatal("a failing create was not reported")
	}
}
