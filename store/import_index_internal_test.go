package store

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"switchboard/internal/benchgen"

	"switchboard/store/internal/index"
	"switchboard/store/kv"
)

// TestImportIndexIsConsistent imports a file whose postings are written term by term at the
// end of each batch (with phones repeated within a batch, which updates contacts created
// earlier in it), and checks the whole contact index against the records: every contact's
// terms hold its num and nothing else is held; chunks are within bounds and ascending.
func TestImportIndexIsConsistent(t *testing.T) {
	s, ws := impStore(t)
	var csv strings.Builder
	csv.WriteString("firstName,lastName,phone,email,company\n")
	g := benchgen.New(3)
	var phones []string
	for i := range 4000 {
		c := g.Next()
		phone := c.Phone
		if i%50 == 49 {
			phone = phones[i-10] // an update of a contact written earlier in the same batch
			c.First = "Renamed"
		}
		phones = append(phones, phone)
		fmt.Fprintf(&csv, "%s,%s,%s,%s,%s\n", c.First, c.Last, phone, c.Email, c.Company)
	}
	rep, err := s.ImportContacts(ws, strings.NewReader(csv.String()), nil)
	if err != nil || rep.Rejected != 0 {
		t.Fatalf("import: %+v, %v", rep, err)
	}
	checkContactIndex(t, s, ws)
	if res, err := s.SearchContacts(ws, "renamed"); err != nil || len(res) != 80 {
		t.Fatalf("search renamed: %d results, %v; want 80", len(res), err)
	}
}

// checkContactIndex compares the postings of a workspace with its records.
func checkContactIndex(t *testing.T, s *Store, workspaceID string) {
	t.Helper()
	ws := idKey(workspaceID)
	err := s.view(func(tx *kv.Tx) error {
		want := map[string][]uint32{}
		tenant := tenantOf(tx)
		// The phone, e-mail and order entries the records call for, each exactly once.
		wantPhones, wantEmails, wantOrder := map[string]string{}, map[string]bool{}, map[string]bool{}
		err := index.WsBucket(tx, bContacts, ws).ForEach(func(k, v []byte) error {
			id := [16]byte(k)
			c, num, err := decodeContact(v, idFromKey(k), workspaceID, tenant)
			if err != nil {
				return err
			}
			gotID, rank, ok := index.NewSlotReader(index.WsBucket(tx, bContactNums, ws)).Slot(num)
			if !ok || gotID != id {
				t.Errorf("num %d of %s maps to %x", num, c.ID, gotID)
			}
			// The rank follows the contact's latest name (rows of a batch that rename a
			// contact written earlier in it rewrite its slot).
			if want := index.RankOf(docOf(&c).SortKey()); rank != want {
				t.Errorf("num %d of %s (%s %s) ranks %q, want %q", num, c.ID, c.FirstName, c.LastName, rank, want)
			}
			for _, term := range docOf(&c).Terms() {
				want[term] = append(want[term], num)
			}
			if c.Phone() != "" {
				wantPhones[c.Phone()] = string(index.NumKey(num))
			}
			if c.Email != "" {
				wantEmails[string(index.EmailKey(c.Email, num))] = true
			}
			wantOrder[string(index.OrderKey(docOf(&c), num))] = true
			return nil
		})
		if err != nil {
			return err
		}
		// Each of the three indexes as its readers see it (both parts, index.SplitIndex):
		// every entry in one part only, and the recent part's sequence counting its entries.
		checkEntries := func(name string, top index.Split, want map[string]bool, val func(k string) string) {
			idx := index.ReadSplit(tx, top, ws)
			main, recent := index.WsBucket(tx, top.Main, ws), index.WsBucket(tx, top.Recent, ws)
			n := 0
			c := idx.Cursor()
			var prev []byte
			for k, v := c.First(); k != nil; k, v = c.Next() {
				n++
				if prev != nil && bytes.Compare(prev, k) >= 0 {
					t.Errorf("%s: entry %q after %q", name, k, prev)
				}
				prev = bytes.Clone(k)
				if !want[string(k)] {
					t.Errorf("%s: entry %q belongs to no contact", name, k)
				} else if val != nil && val(string(k)) != string(v) {
					t.Errorf("%s: entry %q points at %x, want %x", name, k, v, val(string(k)))
				}
				if main != nil && recent != nil && hasKey(main, k) && hasKey(recent, k) {
					t.Errorf("%s: entry %q is in both parts", name, k)
				}
			}
			if n != len(want) {
				t.Errorf("%s: %d entries, want %d", name, n, len(want))
			}
			if recent != nil {
				if got, keys := recent.Sequence(), countPrefix(recent, nil); got != uint64(keys) {
					t.Errorf("%s: the recent part counts %d entries and holds %d", name, got, keys)
				}
			}
		}
		phones := map[string]bool{}
		for p := range wantPhones {
			phones[p] = true
		}
		checkEntries("phone", indexLayout.Phone, phones, func(k string) string { return wantPhones[k] })
		checkEntries("email", indexLayout.Email, wantEmails, nil)
		checkEntries("order", indexLayout.Order, wantOrder, nil)
		// The postings of both parts: within a part a term's chunks ascend; a num is in one part.
		got := map[string][]uint32{}
		for _, b := range []*kv.Bucket{index.WsBucket(tx, bContactTerms, ws), index.WsBucket(tx, bContactTermsRecent, ws)} {
			if b == nil {
				continue
			}
			part := map[string][]uint32{}
			cur := b.Cursor()
			for k, v := cur.First(); k != nil; k, v = cur.Next() {
				term := string(k[:len(k)-5])
				if len(v) > index.ChunkMax+5 {
					t.Errorf("chunk of %q holds %d bytes", term, len(v))
				}
				nums, err := index.ChunkNums(k, v)
				if err != nil {
					return err
				}
				if prev := part[term]; len(prev) > 0 && nums[0] <= prev[len(prev)-1] {
					t.Errorf("chunks of %q overlap", term)
				}
				part[term] = append(part[term], nums...)
			}
			for term, nums := range part {
				got[term] = append(got[term], nums...)
			}
		}
		for term := range got {
			slices.Sort(got[term])
		}
		if recent := index.WsBucket(tx, bContactTermsRecent, ws); recent != nil {
			n := 0
			recent.ForEach(func(k, v []byte) error {
				nums, _ := index.ChunkNums(k, v)
				n += len(nums)
				return nil
			})
			if recent.Sequence() != uint64(n) {
				t.Errorf("postings: the recent part counts %d nums and holds %d", recent.Sequence(), n)
			}
		}
		for term, nums := range want {
			slices.Sort(nums)
			if !slices.Equal(got[term], nums) {
				t.Errorf("term %q: postings %v, records say %v", term, got[term], nums)
			}
		}
		for term := range got {
			if _, ok := want[term]; !ok {
				t.Errorf("term %q has postings but no contact has it", term)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestImportFillsRecordPages: an import's contact records fill their pages (a bulk load is read
// far more than edited), where records written one at a time keep a twentieth of each page
// for growth; the file of an import is that much smaller.
func TestImportFillsRecordPages(t *testing.T) {
	s, imported, path := impStoreAt(t)
	oneByOne, err := s.CreateWorkspace("One by one")
	if err != nil {
		t.Fatal(err)
	}
	impRun(t, s, imported, personsCSV(4000))
	for i := range 4000 {
		first, last, email := fmt.Sprint("Name", i), fmt.Sprint("Surname", i), fmt.Sprintf("person%d@example.com", i)
		if _, err := s.CreateContact(oneByOne.ID, ContactInput{Phone: fmt.Sprintf("+1415%07d", 5000000+i),
			FirstName: &first, LastName: &last, Email: &email}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	fill := func(ws string) float64 {
		var f float64
		_ = db.View(func(tx *bolt.Tx) error {
			st := tx.Bucket(bContacts).Bucket(idKey(ws)).Stats()
			f = float64(st.LeafInuse) / float64(st.LeafAlloc)
			return nil
		})
		return f
	}
	if imp, one := fill(imported), fill(oneByOne.ID); imp < 0.98 || imp <= one {
		t.Errorf("record pages %.1f %% in use after an import, %.1f %% written one by one; want the import's above 98 %% and fuller",
			100*imp, 100*one)
	}
}

// TestFileGrowsInSmallSteps: the file on disk runs at most 4 MiB past the pages in use (bbolt's
// default step left up to 16 MiB never written at its end).
func TestFileGrowsInSmallSteps(t *testing.T) {
	s, ws, path := impStoreAt(t)
	impRun(t, s, ws, personsCSV(3000))
	s.Close()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var used int64
	_ = db.View(func(tx *bolt.Tx) error { used = tx.Size(); return nil })
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if tail := info.Size() - used; tail > growStep || tail < 0 {
		t.Errorf("the file is %d bytes past its %d bytes of pages, want at most %d", tail, used, growStep)
	}
}
