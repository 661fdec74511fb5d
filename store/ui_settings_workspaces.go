package store

import (
	bolt "go.etcd.io/bbolt"
)

// SetWorkspaceArchived archives or restores a workspace. An archived workspace keeps its data;
// the admin UI lists it apart and leaves it out of its members' workspace choice.
func (s *Store) SetWorkspaceArchived(id string, archived bool) error {
	return s.update(func(tx *bolt.Tx, fx *effects) error {
		if _, err := getWorkspace(tx, id); err != nil {
			return fx.refuse(err)
		}
		meta := tx.Bucket(bMeta)
		if !archived {
			return meta.Delete(archivedKey(id))
		}
		b, err := s.Now().MarshalText()
		if err != nil {
			return err
		}
		return meta.Put(archivedKey(id), b)
	})
}

// ArchivedWorkspaces is the set of archived workspace ids.
func (s *Store) ArchivedWorkspaces() (map[string]bool, error) {
	out := map[string]bool{}
	err := s.db.View(func(tx *bolt.Tx) error {
		ws, err := s.workspacesIn(tx)
		for _, w := range ws {
			if tx.Bucket(bMeta).Get(archivedKey(w.ID)) != nil {
				out[w.ID] = true
			}
		}
		return err
	})
	return out, err
}

func (s *Store) workspacesIn(tx *bolt.Tx) ([]Workspace, error) {
	var out []Workspace
	err := tx.Bucket(bWorkspaces).ForEach(func(_, v []byte) error {
		var w Workspace
		if err := jsonUnmarshal(v, &w); err != nil {
			return err
		}
		out = append(out, w)
		return nil
	})
	return out, err
}
