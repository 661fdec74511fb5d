package media_test

import (
	"bytes"
	"strings"
	"testing"

	"switchboard/media"
)

// Small real files of each accepted type (their leading bytes are what sniffing reads).
var (
	jpegBytes = append([]byte{0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, 'J', 'F', 'I', 'F', 0}, bytes.Repeat([]byte{1}, 64)...)
	pngBytes  = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{0}, 64)...)
	gifBytes  = append([]byte("GIF89a"), bytes.Repeat([]byte{0}, 64)...)
	webpBytes = append([]byte("RIFF\x24\x00\x00\x00WEBPVP8 "), bytes.Repeat([]byte{0}, 64)...)
	mp4Bytes  = append([]byte("\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"), bytes.Repeat([]byte{0}, 64)...)
	mp3Bytes  = append([]byte("ID3\x03\x00\x00\x00\x00\x00\x0a"), bytes.Repeat([]byte{0}, 64)...)
	vcfBytes  = []byte("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ana Lima\r\nTEL:+14155550123\r\nEND:VCARD\r\n")
	pdfBytes  = []byte("%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n")
)

func TestSniff(t *testing.T) {
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"jpeg", jpegBytes, "image/jpeg"},
		{"png", pngBytes, "image/png"},
		{"gif", gifBytes, "image/gif"},
		{"webp", webpBytes, "image/webp"},
		{"mp4", mp4Bytes, "video/mp4"},
		{"mp3", mp3Bytes, "audio/mpeg"},
		{"vcard", vcfBytes, "text/vcard"},
		{"pdf", pdfBytes, "application/pdf"},
		{"html", []byte("<!DOCTYPE html><html><script>alert(1)</script></html>"), "text/html"},
		{"svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`), "image/svg+xml"},
		{"zip", []byte("PK\x03\x04\x14\x00\x00\x00\x08\x00"), "application/zip"},
		{"text", []byte("just some words"), "text/plain"},
	} {
		if got := media.Sniff(c.data); got != c.want {
			t.Errorf("%s: sniffed %q, want %q", c.name, got, c.want)
		}
	}
}

// TestCheck: the type comes from the bytes, never the name; a refused file is named, and any
// refusal refuses the whole message.
func TestCheck(t *testing.T) {
	big := append(bytes.Clone(pngBytes), make([]byte, media.MaxFileSize)...)
	eleven := make([]media.File, 11)
	for i := range eleven {
		eleven[i] = media.File{Name: "p" + string(rune('a'+i)) + ".png", Data: pngBytes}
	}
	for _, c := range []struct {
		name    string
		files   []media.File
		wantErr string // "" accepts
		types   []string
	}{
		{"every carrier type", []media.File{{"a.jpg", jpegBytes, 0}, {"b.png", pngBytes, 0}, {"c.gif", gifBytes, 0}, {"d.webp", webpBytes, 0},
			{"e.mp4", mp4Bytes, 0}, {"f.mp3", mp3Bytes, 0}, {"g.vcf", vcfBytes, 0}, {"h.pdf", pdfBytes, 0}}, "",
			[]string{"image/jpeg", "image/png", "image/gif", "image/webp", "video/mp4", "audio/mpeg", "text/vcard", "application/pdf"}},
		{"a PNG named .pdf is a PNG", []media.File{{Name: "report.pdf", Data: pngBytes}}, "", []string{"image/png"}},
		{"HTML named .jpg is refused", []media.File{{Name: "cat.jpg", Data: []byte("<html><body>hi</body></html>")}}, `"cat.jpg" is a text/html file`, nil},
		{"SVG is refused", []media.File{{Name: "logo.svg", Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"></svg>`)}}, `"logo.svg" is a image/svg+xml file`, nil},
		{"over 5 MB", []media.File{{Name: "ok.png", Data: pngBytes}, {Name: "huge.png", Data: big}}, `"huge.png" is larger than 5 MB`, nil},
		{"exactly 5 MB", []media.File{{Name: "edge.png", Data: append(bytes.Clone(pngBytes), make([]byte, media.MaxFileSize-len(pngBytes))...)}}, "", []string{"image/png"}},
		{"empty", []media.File{{Name: "nothing.png", Data: nil}}, `"nothing.png" is empty`, nil},
		{"the 11th file", eleven, `"pk.png" is one file too many`, nil},
		{"ten files", eleven[:10], "", []string{"image/png", "image/png", "image/png", "image/png", "image/png", "image/png", "image/png", "image/png", "image/png", "image/png"}},
	} {
		got, err := media.Check(c.files)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: error %v, want one containing %q", c.name, err, c.wantErr)
			}
			if got != nil {
				t.Errorf("%s: %d files accepted with the refusal, want none", c.name, len(got))
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: refused: %v", c.name, err)
			continue
		}
		for i, f := range got {
			if f.Type != c.types[i] {
				t.Errorf("%s: file %d typed %q, want %q", c.name, i, f.Type, c.types[i])
			}
		}
	}
}

func TestCleanName(t *testing.T) {
	for in, want := range map[string]string{
		"photo.jpg":                       "photo.jpg",
		"../../etc/passwd":                "passwd",
		`C:\Users\ana\My Pic.png`:         "My-Pic.png",
		"naïve café.jpg":                  "na-ve-caf-.jpg",
		"":                                "file.png",
		"...":                             "file.png",
		"a\"; filename=evil.html":         "a-filename-evil.html",
		strings.Repeat("x", 300) + ".png": strings.Repeat("x", 96) + ".png",
	} {
		if got := media.CleanName(in, "image/png"); got != want {
			t.Errorf("CleanName(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzCheck: whatever the bytes and name, an accepted file has an allowed type that sniffing
// its bytes gives again, at most 5 MB, and a clean name; a refusal names the file.
func FuzzCheck(f *testing.F) {
	for _, seed := range [][]byte{jpegBytes, pngBytes, gifBytes, webpBytes, mp4Bytes, mp3Bytes, vcfBytes, pdfBytes, []byte("<html>"), nil} {
		f.Add("file.bin", seed)
	}
	f.Add("../x y\x00.png", pngBytes)
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		got, err := media.Check([]media.File{{Name: name, Data: data}})
		if err != nil {
			if got != nil || !strings.HasPrefix(err.Error(), media.DisplayName(name, 0)+" ") {
				t.Fatalf("refusal %q does not start with the file's name %q", err, media.DisplayName(name, 0))
			}
			return
		}
		c := got[0]
		if !media.Allowed(c.Type) || media.Sniff(data) != c.Type || len(c.Data) > media.MaxFileSize || len(c.Data) == 0 {
			t.Fatalf("accepted %d bytes typed %q", len(c.Data), c.Type)
		}
		if c.Name == "" || len(c.Name) > 100 || strings.ContainsAny(c.Name, "/\\\"; \x00") {
			t.Fatalf("unclean name %q", c.Name)
		}
	})
}
