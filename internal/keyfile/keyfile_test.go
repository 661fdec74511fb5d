package keyfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestLoadMakesOnceThenReads: the first Load makes a private file, later ones read the same key;
// a file of the wrong size is refused, not replaced.
func TestLoadMakesOnceThenReads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "secret.key")
	a, err := Load(path, 32)
	if err != nil || len(a) != 32 {
		t.Fatalf("first load: %d bytes, %v", len(a), err)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v, want mode 0600", info.Mode(), err)
	}
	b, err := Load(path, 32)
	if err != nil || !bytes.Equal(a, b) {
		t.Fatalf("second load gave another key (%v)", err)
	}
	if _, err := Load(path, 96); !errors.Is(err, ErrMalformed) {
		t.Fatalf("a 32-byte file read for 96 bytes: %v, want ErrMalformed", err)
	}
	if c, _ := Load(path, 32); !bytes.Equal(a, c) {
		t.Fatal("a refused read changed the file")
	}
}
