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
