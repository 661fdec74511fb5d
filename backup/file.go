package backup

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// FileTarget keeps backups in a directory (a mounted volume, a synced folder). Each backup
// NAME has its checksum in NAME.sha256, in the format `sha256sum -c` reads.
type FileTarget struct {
	dir string
}

// NewFileTarget returns the target for dir. The directory must exist when a backup is made:
// creating it would silently write to the local disk when an off-site mount is missing.
func NewFileTarget(dir string) *FileTarget { return &FileTarget{dir: dir} }

func (f *FileTarget) String() string { return "file://" + filepath.ToSlash(f.dir) }

func (f *FileTarget) path(name string) (string, error) {
	if name == "" || name != filepath.Base(name) || name == "." || name == ".." {
		return "", fmt.Errorf("backup: %q is not a file name", name)
	}
	return filepath.Join(f.dir, name), nil
}

// Put writes a temporary file in the directory, syncs it, writes NAME.sha256, then renames the
// file into place and syncs the directory: NAME exists only whole, with its checksum beside it.
func (f *FileTarget) Put(ctx context.Context, name string, r io.Reader, sum func() string) (int64, error) {
	dst, err := f.path(name)
	if err != nil {
		return 0, err
	}
	if st, err := os.Stat(f.dir); err != nil || !st.IsDir() {
		return 0, fmt.Errorf("backup directory %s does not exist (create it, or mount the volume)", f.dir)
	}
	tmp, err := os.CreateTemp(f.dir, ".switchboard-backup-*.partial")
	if err != nil {
		return 0, err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	n, err := io.Copy(tmp, ctxReader{ctx, r})
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = writeFileAtomic(dst+".sha256", []byte(sum()+"  "+name+"\n"))
	}
	if err == nil {
		err = os.Rename(tmp.Name(), dst)
	}
	if err == nil {
		err = syncDir(f.dir)
	}
	if err != nil {
		return 0, fmt.Errorf("write %s: %w", dst, err)
	}
	return n, nil
}

func (f *FileTarget) List(ctx context.Context) ([]Object, error) {
	entries, err := os.ReadDir(f.dir)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", f.dir, err)
	}
	var out []Object
	for _, e := range entries {
		t, ok := ParseName(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // deleted while listing
		}
		out = append(out, Object{Name: e.Name(), Size: info.Size(), Time: t})
	}
	sortNewestFirst(out)
	return out, nil
}

var sha256Line = regexp.MustCompile(`^([0-9a-fA-F]{64})(\s|$)`)

func (f *FileTarget) Open(ctx context.Context, name string) (io.ReadCloser, Object, error) {
	p, err := f.path(name)
	if err != nil {
		return nil, Object{}, err
	}
	file, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, Object{}, fmt.Errorf("%s: %w", p, ErrNotFound)
	}
	if err != nil {
		return nil, Object{}, err
	}
	info, err := file.Stat()
	if err != nil || !info.Mode().IsRegular() {
		file.Close()
		return nil, Object{}, fmt.Errorf("%s is not a regular file", p)
	}
	obj := Object{Name: name, Size: info.Size(), Time: info.ModTime().UTC()}
	if t, ok := ParseName(name); ok {
		obj.Time = t
	}
	sum, err := readSHA256File(p + ".sha256")
	if err != nil {
		file.Close()
		return nil, Object{}, err
	}
	obj.SHA256 = sum
	return file, obj, nil
}

// readSHA256File reads the checksum recorded in a sha256sum-style file; a missing file means
// none was recorded.
func readSHA256File(p string) (string, error) {
	file, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	defer file.Close()
	line, err := bufio.NewReader(io.LimitReader(file, 4096)).ReadString('\n')
	if err != nil && err != io.EOF {
		return "", err
	}
	m := sha256Line.FindStringSubmatch(strings.TrimSpace(line))
	if m == nil {
		return "", fmt.Errorf("%s does not hold a SHA-256 checksum", p)
	}
	return strings.ToLower(m[1]), nil
}

func (f *FileTarget) Delete(ctx context.Context, name string) error {
	p, err := f.path(name)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.Remove(p + ".sha256"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// writeFileAtomic writes data to a temporary file beside p, syncs it and renames it to p.
func writeFileAtomic(p string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(p), ".switchboard-*.partial")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), p)
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// ctxReader stops a copy once ctx is done (a server shutting down mid-backup).
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
