package webhooks

import "time"

// OnFill makes w report each read of the delivery queue (the time it read, the deliveries it
// claimed). Set it before Start.
func OnFill(w *Worker, f func(now time.Time, claimed int)) { w.onFill = f }
