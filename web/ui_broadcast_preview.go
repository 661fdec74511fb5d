package web

import (
	"net/http"

	"switchboard/internal/phone"
	"switchboard/store"
	"switchboard/views"
)

// maxPreviewForm bounds the compose form a preview reads: its text and up to 10,000 pasted
// numbers, without the files (the page leaves them out of the preview's request).
const maxPreviewForm = 1 << 20

// broadcastPreview is POST /broadcasts/new/preview: the compose form as typed so far, answered
// with the worst case of its copies over the recipients chosen (an htmx fragment). Nothing is
// written; a form that is not complete yet previews what it has.
func (h *Handler) broadcastPreview(w http.ResponseWriter, r *http.Request, u *ui) {
	r.Body = http.MaxBytesReader(w, r.Body, maxPreviewForm)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "The form could not be read.", http.StatusBadRequest)
		return
	}
	var f views.ComposeForm
	in, _ := h.readCompose(r, u, &f)
	worst, err := h.worstCopy(u, in)
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	h.fragment(w, r, views.ComposeWorst(worst))
}

// worstCopy is the longest copy of in's text over its recipients, as the compose page shows it.
func (h *Handler) worstCopy(u *ui, in store.BroadcastInput) (views.WorstCopy, error) {
	p, err := h.store.PreviewBroadcast(u.ws.ID, in.Text, in.OptOutInstructions, in.Targets())
	if err != nil {
		return views.WorstCopy{}, err
	}
	to := p.Name
	if to == "" {
		to = phone.Format(p.Phone, u.ws.Region())
	}
	return views.WorstCopy{Recipients: p.Recipients, To: to, Segments: p.Segments, Encoding: p.Encoding}, nil
}
