// Package media holds the rules for MMS attachments — which files are accepted (judged by their
// bytes, never their names), how large and how many — and the worker that fetches inbound
// carrier media into the store.
package media

import (
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gabriel-vasile/mimetype"
)

// Limits of one message's attachments: what carriers accept for MMS.
const (
	MaxFiles    = 10
	MaxFileSize = 5 << 20
	// MaxUploadBody bounds a multipart form that carries attachments: every file at its largest
	// plus 1 MiB for the other fields and the multipart framing.
	MaxUploadBody = MaxFiles*MaxFileSize + 1<<20
	// maxNameLen bounds a kept file name (in bytes).
	maxNameLen = 100
)

// Types lists the content types carriers take for MMS, in the order the UI names them.
var Types = []string{"image/jpeg", "image/png", "image/gif", "image/webp", "video/mp4", "audio/mpeg", "text/vcard", "application/pdf"}

// Sniff names the content type of data from its bytes (magic numbers and structure), never
// from a file name. Types outside Types come back as the detector names them, parameters cut.
func Sniff(data []byte) string {
	m := mimetype.Detect(data)
	for _, t := range Types {
		if m.Is(t) {
			return t
		}
	}
	t, _, _ := strings.Cut(m.String(), ";")
	return strings.TrimSpace(t)
}

// Allowed reports whether a sniffed type is one carriers take.
func Allowed(contentType string) bool {
	for _, t := range Types {
		if t == contentType {
			return true
		}
	}
	return false
}

// IsImage reports whether a type is shown inline as a picture: the raster types carriers take
// (never SVG, which can carry script).
func IsImage(contentType string) bool {
	switch contentType {
	case "image/jpeg", "image/png", "image/gif", "image/webp":
		return true
	}
	return false
}

// File is one attachment as a user gave it. Size, when larger than len(Data), is the size of a
// file whose bytes were not all read (it is refused as too large without reading it).
type File struct {
	Name string
	Data []byte
	Size int64
}

// Checked is an accepted attachment: a clean file name and its sniffed type.
type Checked struct {
	Name string
	Type string
	Data []byte
}

// Check judges a message's attachments: at most MaxFiles, each at most MaxFileSize and of one of
// Types by its bytes. It returns them all, or an error naming the first file refused (the 11th
// file, one too large, one of another type or empty), so that nothing is stored.
func Check(files []File) ([]Checked, error) {
	out := make([]Checked, 0, len(files))
	for i, f := range files {
		name := DisplayName(f.Name, i)
		if i == MaxFiles {
			return nil, fmt.Errorf("%s is one file too many: at most %d per message", name, MaxFiles)
		}
		size := max(f.Size, int64(len(f.Data)))
		if size == 0 {
			return nil, fmt.Errorf("%s is empty", name)
		}
		if size > MaxFileSize {
			return nil, fmt.Errorf("%s is larger than 5 MB (%s)", name, FormatSize(size))
		}
		t := Sniff(f.Data)
		if !Allowed(t) {
			return nil, fmt.Errorf("%s is a %s file: send JPEG, PNG, GIF, WebP, MP4, MP3, vCard or PDF", name, t)
		}
		out = append(out, Checked{Name: CleanName(f.Name, t), Type: t, Data: f.Data})
	}
	return out, nil
}

// DisplayName names the i-th file (from 0) in a message to its user: its base name in quotes,
// at most 60 characters, or "file N" when it has none.
func DisplayName(name string, i int) string {
	name = strings.TrimSpace(path.Base(strings.ReplaceAll(name, "\\", "/")))
	if name == "" || name == "." || name == "/" {
		return fmt.Sprintf("file %d", i+1)
	}
	if r := []rune(name); len(r) > 60 {
		name = string(r[:57]) + "…"
	}
	return `"` + strings.ToValidUTF8(name, "?") + `"`
}

// CleanName makes a file name safe for a URL path segment and a Content-Disposition header:
// the base name only, letters, digits and . _ - kept, other runs made one "-", at most 100
// bytes; an empty result is "file" plus the type's extension.
func CleanName(name, contentType string) string {
	name = path.Base(strings.ReplaceAll(name, "\\", "/"))
	var b strings.Builder
	dash := false
	for _, r := range name {
		ok := r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '_' || r == '-')
		switch {
		case ok:
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.Trim(b.String(), ".-")
	if len(out) > maxNameLen {
		out = strings.Trim(out[len(out)-maxNameLen:], ".-")
	}
	if out == "" {
		out = "file" + extension(contentType)
	}
	return out
}

func extension(contentType string) string {
	switch contentType {
	case "image/jpeg":
		return ".jpg"
	case "image/png":
		return ".png"
	case "image/gif":
		return ".gif"
	case "image/webp":
		return ".webp"
	case "video/mp4":
		return ".mp4"
	case "audio/mpeg":
		return ".mp3"
	case "text/vcard":
		return ".vcf"
	case "application/pdf":
		return ".pdf"
	}
	if m := mimetype.Lookup(contentType); m != nil {
		return m.Extension()
	}
	return ""
}

// FormatSize writes a byte count for people: 812 B, 4.2 KB, 3.1 MB.
func FormatSize(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/1024/1024)
	}
}
