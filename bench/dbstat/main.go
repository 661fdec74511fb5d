// Command dbstat prints where a Switchboard database file's pages go: per top-level bucket
// (nested buckets included) the leaf and branch pages allocated and in use, and the free pages.
//
//	go run ./dbstat FILE
package main

import (
	"fmt"
	"os"

	bolt "go.etcd.io/bbolt"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: dbstat FILE")
		os.Exit(2)
	}
	db, err := bolt.Open(os.Args[1], 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer db.Close()
	err = db.View(func(tx *bolt.Tx) error {
		fmt.Printf("file %d MB, page %d B, %d pages\n", tx.Size()>>20, db.Info().PageSize, tx.Size()/int64(db.Info().PageSize))
		var totalAlloc int
		err := tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			s := b.Stats()
			alloc := s.LeafAlloc + s.BranchAlloc
			totalAlloc += alloc
			if alloc < 1<<20 {
				return nil
			}
			fmt.Printf("%-32s keys %9d  leaf %7.1f MB alloc %7.1f MB in use (%2.0f%%)  branch %6.1f MB  inline %d\n",
				name, s.KeyN, float64(s.LeafAlloc)/1e6, float64(s.LeafInuse)/1e6, 100*float64(s.LeafInuse)/float64(max(1, s.LeafAlloc)),
				float64(s.BranchAlloc)/1e6, s.InlineBucketN)
			return nil
		})
		st := db.Stats()
		fmt.Printf("buckets %.1f MB allocated; free pages %d (%.1f MB), pending %d\n", float64(totalAlloc)/1e6,
			st.FreePageN, float64(st.FreePageN*db.Info().PageSize)/1e6, st.PendingPageN)
		return err
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
