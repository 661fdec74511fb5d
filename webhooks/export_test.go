package webhooks

import (
	"time"

	"switchboard/store"
)

// OnFill makes w report each read of the delivery queue (the time it read, the deliveries it
// claimed). Set it before Start.
func OnFill(w *Worker, f func(now time.Time, claimed int)) { w.onFill = f }

// BeforeRecord makes w call f after each attempt's answer, before its outcome is recorded. Set
// it before Start.
func BeforeRecord(w *Worker, f func(deliveryID string, status int)) {
	w.beforeRecord = func(j store.DueDelivery, status int) { f(j.Delivery.ID, status) }
}
