//go:build !storereplay

package store

// replayAll is off: writes commit as Options.Replay says.
const replayAll = false
