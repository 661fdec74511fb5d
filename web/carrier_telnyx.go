package web

import (
	"errors"
	"io"
	"log/slog"
	"net/http"

	"switchboard/carrier"
	"switchboard/store"
)

// telnyxWebhook is POST /carrier/telnyx/webhook: every Telnyx messaging event comes here. The
// Ed25519 signature over "{telnyx-timestamp}|{body}" is checked first (missing, wrong or stale:
// 403, nothing read further, nothing stored); a verified body that is no Telnyx event is 400.
// message.received records an inbound text (keywords and opt-outs as for Twilio), message.sent
// and message.finalized apply receipts; other events are acknowledged and ignored. What cannot be
// recorded for a reason a retry will not change is logged and answered 200, so that Telnyx does
// not retry it; an internal error is 500, so that it does.
func (h *Handler) telnyxWebhook(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxCallbackBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, "webhook body is larger than 64 KiB")
			return
		}
		writeError(w, http.StatusBadRequest, "webhook body could not be read")
		return
	}
	if err := carrier.VerifyTelnyxSignature(h.telnyxPublicKey(), body, r.Header.Get(carrier.TelnyxTimestampHeader),
		r.Header.Get(carrier.TelnyxSignatureHeader), h.now()); err != nil {
		slog.WarnContext(r.Context(), "telnyx webhook with a missing, wrong or stale signature", "request_id", requestID(r.Context()))
		writeError(w, http.StatusForbidden, "missing, invalid or stale telnyx-signature-ed25519")
		return
	}
	ev, err := carrier.ParseTelnyxEvent(body)
	if errors.Is(err, carrier.ErrNotTelnyxEvent) {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if err == nil {
		switch ev.Type {
		case carrier.TelnyxMessageReceived:
			err = h.receiveSMS(r, store.ProviderTelnyx, ev.SMS, nil)
		case carrier.TelnyxMessageSent, carrier.TelnyxMessageFinalized:
			err = h.cfg.Receiver.Status(store.ProviderTelnyx, ev.Status)
		}
	}
	if err != nil && !h.callbackIgnorable(r, err) {
		writeStoreError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte("{}"))
}
