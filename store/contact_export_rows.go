package store

import (
	"bytes"

	"switchboard/store/kv"
)

// ExportRow is one contact of an export with what its columns need besides the contact.
type ExportRow struct {
	Contact Contact
	Groups  []string // group names
	OptOut  *OptOut  // nil when the number has not opted out
	Consent *Consent // the number's current consent entry (LatestConsent), nil when it has none
}

// exportChunk is how many contacts one read transaction of an export reads: the rows are
// handed to the writer after the transaction ends, so a slow reader never holds one open, and
// memory stays at one chunk whatever the number of contacts.
const exportChunk = 1000

// ExportContacts calls fn with every contact matching f, in f's order, read exportChunk at a
// time in short read transactions; fn runs outside them. A contact deleted while the export
// runs and not yet reached is left out.
func (s *Store) ExportContacts(workspaceID string, f ContactFilter, fn func(ExportRow) error) error {
	cursor := ""
	groupNames := map[string]string{}
	rows := make([]ExportRow, 0, exportChunk)
	var sel *contactSel
	defer func() {
		if sel != nil {
			sel.Release()
		}
	}()
	for {
		rows = rows[:0]
		err := s.view(func(tx *kv.Tx) error {
			var err error
			if sel == nil {
				var ok bool
				if sel, ok, err = s.selectContacts(tx, workspaceID, f); err != nil || !ok {
					sel = nil
					return err
				}
			} else if !sel.rebind(tx) {
				return nil
			}
			tenant := tenantOf(tx)
			// Most workspaces have no group members or no consent entries at all: one seek per
			// chunk spares a seek per contact. Opted-out numbers are in the workspace's filter,
			// which answers "not opted out" for most numbers without a seek.
			anyGroups := hasPrefix(tx.Bucket(bContactGroups), sel.ws)
			anyConsent := hasPrefix(tx.Bucket(bConsents), sel.ws)
			optFilter := s.optFilterOf(workspaceID)
			var werr error
			cursor, err = sel.walk(f.Newest, cursor, func(id [16]byte) bool {
				v := sel.recs.Get(id[:])
				if v == nil {
					return true
				}
				c, _, err := decodeContact(v, slotID(id), workspaceID, tenant)
				if err != nil {
					werr = err
					return false
				}
				row := ExportRow{Contact: c}
				if anyGroups {
					p := append(bytes.Clone(sel.ws), id[:]...)
					_ = forEachPrefix(tx.Bucket(bContactGroups), p, func(k, _ []byte) error {
						gid := idFromKey(k)
						name, ok := groupNames[gid]
						if !ok {
							if g, err := getGroup(tx, workspaceID, gid); err == nil {
								name = g.Name
							}
							groupNames[gid] = name
						}
						if name != "" {
							row.Groups = append(row.Groups, name)
						}
						return nil
					})
				}
				if optFilter != nil && optFilter.test(c.Phone()) {
					if oid := idxFirst(tx.Bucket(bOptOutPhone), workspaceID, c.Phone()); oid != "" {
						var o OptOut
						if ok, err := getJSON(tx.Bucket(bOptOuts), wsKey(workspaceID, oid), &o); err == nil && ok {
							row.OptOut = &o
						}
					}
				}
				if anyConsent {
					if e, ok, err := latestConsent(tx, workspaceID, c.Phone()); err != nil {
						werr = err
						return false
					} else if ok {
						row.Consent = &e
					}
				}
				rows = append(rows, row)
				return len(rows) < exportChunk
			})
			if werr != nil {
				return werr
			}
			return err
		})
		if err != nil {
			return err
		}
		for _, r := range rows {
			if err := fn(r); err != nil {
				return err
			}
		}
		if len(rows) < exportChunk {
			return nil
		}
	}
}

// hasPrefix reports whether b holds a key starting with p.
func hasPrefix(b *kv.Bucket, p []byte) bool {
	k, _ := b.Cursor().Seek(p)
	return k != nil && bytes.HasPrefix(k, p)
}
