package web

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"switchboard/store"
)

// writeJSON writes v with status. Encoding happens before the header is sent, so a value that
// cannot be encoded becomes a 500, never half a body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		data = []byte(`{"error":"internal error"}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}

type errorBody struct {
	Error string `json:"error"`
}

// writeError writes {"error": msg}.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, errorBody{msg})
}

// writeValidation writes the validation array, sorted by field name in byte order.
func writeValidation(w http.ResponseWriter, errs store.ValidationError) {
	sorted := slices.Clone(errs)
	slices.SortStableFunc(sorted, func(a, b store.FieldError) int { return strings.Compare(a.Field, b.Field) })
	writeJSON(w, http.StatusBadRequest, sorted)
}

// writeStoreError maps a store error to its status: validation 400, not found 404, forbidden
// 403, conflict 409, opted out 422, a cluster without a leader 503; anything else is logged and answered 500 without detail.
func writeStoreError(w http.ResponseWriter, r *http.Request, err error) {
	var verrs store.ValidationError
	if errors.As(err, &verrs) {
		writeValidation(w, verrs)
		return
	}
	if errors.Is(err, store.ErrUnavailable) {
		w.Header().Set("Retry-After", "1")
		if errors.Is(err, store.ErrUncertain) {
			writeError(w, http.StatusServiceUnavailable, uncertainText)
		} else {
			writeError(w, http.StatusServiceUnavailable, unavailableText)
		}
		return
	}
	var se *store.Error
	if errors.As(err, &se) {
		switch {
		case errors.Is(err, store.ErrNotFound):
			writeError(w, http.StatusNotFound, se.Msg)
			return
		case errors.Is(err, store.ErrForbidden):
			writeError(w, http.StatusForbidden, se.Msg)
			return
		case errors.Is(err, store.ErrConflict):
			writeError(w, http.StatusConflict, se.Msg)
			return
		case errors.Is(err, store.ErrOptedOut):
			writeError(w, http.StatusUnprocessableEntity, se.Msg)
			return
		}
	}
	slog.ErrorContext(r.Context(), "internal error", "request_id", requestID(r.Context()), "method", r.Method, "path", logPath(r.URL.Path), "err", err)
	writeError(w, http.StatusInternalServerError, "internal error")
}
