package carrier

import "time"

// OnPass makes d report each pass of its loop (the time it read, the messages it claimed).
// Set it before Start.
func OnPass(d *Dispatcher, f func(now time.Time, claimed int)) { d.onPass = f }
