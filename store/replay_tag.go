//go:build storereplay

package store

// replayAll turns Options.Replay on for every store: `go test -tags storereplay` runs a
// package's tests with every write replayed from its recorded write set.
const replayAll = true
