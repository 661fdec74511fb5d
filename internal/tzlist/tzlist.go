// Package tzlist lists the IANA time-zone names a person chooses from (America/New_York,
// Europe/Paris, UTC), generated from the tzdata Go embeds so that every one loads everywhere.
package tzlist

//go:generate go run gen.go

// Names returns the zone names in byte order; the caller may not change the slice.
func Names() []string { return names }
