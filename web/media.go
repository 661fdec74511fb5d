package web

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"

	"switchboard/media"
	"switchboard/store"
	"switchboard/views"
)

// serveMedia is GET /media/{token}/{name}: a kept file, without sign-in, since carriers fetch
// what they send from here. The token (128 random bits) is the only key. The file is served as
// its sniffed type and can never run as a page of this site: nosniff, a sandbox CSP, and
// attachment for everything but raster images.
func (h *Handler) serveMedia(w http.ResponseWriter, r *http.Request) {
	rec, data, err := h.store.MediaFile(r.PathValue("token"))
	if err != nil || rec.Name != r.PathValue("name") {
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			writeStoreError(w, r, err)
			return
		}
		http.NotFound(w, r)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", rec.Type)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Security-Policy", "sandbox")
	disposition := "attachment"
	if media.IsImage(rec.Type) {
		disposition = "inline"
	}
	hd.Set("Content-Disposition", mime.FormatMediaType(disposition, map[string]string{"filename": rec.Name}))
	hd.Set("Cache-Control", "private, max-age=31536000, immutable")
	http.ServeContent(w, r, "", rec.CreatedAt, bytes.NewReader(data))
}

// readMediaForm reads a form that may carry attachments (the reply box, the new conversation,
// broadcast compose). A multipart post may be as large as its files allow (media.MaxUploadBody);
// any other post keeps the 64 KiB of every form. files are the accepted attachments; fileErr,
// when not "", names the file refused (and then no file is accepted). ok is false when it
// answered already.
func (h *Handler) readMediaForm(w http.ResponseWriter, r *http.Request, u *ui) (files []store.Upload, fileErr string, ok bool) {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "multipart/form-data" {
		return nil, "", h.readUIForm(w, r, u)
	}
	r.Body = http.MaxBytesReader(w, r.Body, media.MaxUploadBody)
	if err := r.ParseMultipartForm(8 << 20); err != nil {
		var tooBig *http.MaxBytesError
		msg := "The form could not be read."
		if errors.As(err, &tooBig) {
			msg = "The files are too large together: at most 10 files of 5 MB each."
		}
		h.render(w, r, u, http.StatusBadRequest, "Bad request", views.ErrorPage("Bad request", msg))
		return nil, "", false
	}
	given, err := formFiles(r.MultipartForm)
	if err != nil {
		h.render(w, r, u, http.StatusBadRequest, "Bad request", views.ErrorPage("Bad request", "The files could not be read."))
		return nil, "", false
	}
	checked, err := media.Check(given)
	if err != nil {
		return nil, err.Error(), true
	}
	for _, c := range checked {
		files = append(files, store.Upload{Name: c.Name, Type: c.Type, Data: c.Data})
	}
	return files, "", true
}

// formFiles reads the "files" parts; a file larger than the limit is not read, only sized, and
// an input left empty (a part with no file name and no bytes) is no file.
func formFiles(form *multipart.Form) ([]media.File, error) {
	var out []media.File
	for _, fh := range form.File["files"] {
		if fh.Filename == "" && fh.Size == 0 {
			continue
		}
		f := media.File{Name: fh.Filename, Size: fh.Size}
		if fh.Size <= media.MaxFileSize && len(out) < media.MaxFiles {
			file, err := fh.Open()
			if err != nil {
				return nil, err
			}
			f.Data, err = io.ReadAll(io.LimitReader(file, media.MaxFileSize+1))
			file.Close()
			if err != nil {
				return nil, err
			}
		}
		out = append(out, f)
	}
	return out, nil
}

// hasFiles reports whether a multipart post carries at least one file.
func hasFiles(r *http.Request) bool {
	if r.MultipartForm == nil {
		return false
	}
	for _, fh := range r.MultipartForm.File["files"] {
		if fh.Filename != "" || fh.Size > 0 {
			return true
		}
	}
	return false
}

// attachmentsOf describes a message's media for the thread: kept files with their name, type
// and size; any other URL as a link.
func (h *Handler) attachmentsOf(urls []string) ([]views.Attachment, error) {
	if len(urls) == 0 {
		return nil, nil
	}
	info, err := h.store.MediaInfo(urls)
	if err != nil {
		return nil, err
	}
	out := make([]views.Attachment, 0, len(urls))
	for _, u := range urls {
		rec, ok := info[store.MediaToken(u)]
		if !ok {
			out = append(out, views.Attachment{URL: u, External: true})
			continue
		}
		// The page links the file on this server by path, whatever public URL it was sent under.
		local := store.MediaPath + rec.Token + "/" + strings.TrimPrefix(u[strings.LastIndex(u, "/")+1:], "/")
		out = append(out, views.Attachment{URL: local, Name: rec.Name, Type: rec.Type,
			Size: media.FormatSize(rec.Size), Image: media.IsImage(rec.Type)})
	}
	return out, nil
}
