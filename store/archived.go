package store

import bolt "go.etcd.io/bbolt"

// WorkspaceArchived reports whether the workspace is archived (read-only: the API refuses
// every action on it).
func (s *Store) WorkspaceArchived(id string) (bool, error) {
	archived := false
	err := s.db.View(func(tx *bolt.Tx) error {
		archived = tx.Bucket(bMeta).Get(archivedKey(id)) != nil
		return nil
	})
	return archived, err
}
