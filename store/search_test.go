package store_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"switchboard/store"
)

// label names a contact in failure messages.
func label(c store.Contact) string {
	return strings.TrimSpace(c.FirstName+" "+c.LastName) + " <" + c.Phone() + ">"
}

func labels(cs []store.Contact) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = label(c)
	}
	return out
}

func search(t testing.TB, s *store.Store, ws, q string) []store.Contact {
	t.Helper()
	got, err := s.SearchContacts(ws, q)
	if err != nil {
		t.Fatalf("SearchContacts(%q): %v", q, err)
	}
	if got == nil {
		t.Fatalf("SearchContacts(%q) = nil, want a non-nil slice", q)
	}
	return got
}

// wantSearch fails unless searching q returns exactly want, in order.
func wantSearch(t testing.TB, s *store.Store, ws, q string, want ...store.Contact) {
	t.Helper()
	got := search(t, s, ws, q)
	if !slices.Equal(ids(got), ids(want)) {
		t.Errorf("search %q = %q, want %q", q, labels(got), labels(want))
	}
}

func TestSearchIsCaseAndAccentInsensitive(t *testing.T) {
	f := newFixture(t)
	jose := f.contact(t, "+14155550001", "José", "Núñez")
	bjorn := f.contact(t, "+14155550002", "Björn", "Ølsen")
	plain := f.contact(t, "+14155550003", "Zoe", "Smith")
	f.contact(t, "+14155550004", "Ann", "Other")

	for _, tc := range []struct {
		q    string
		want []store.Contact
	}{
		{"jose", []store.Contact{jose}},
		{"JOSÉ", []store.Contact{jose}},
		{"José", []store.Contact{jose}},
		{"JoS", []store.Contact{jose}},
		{"nunez", []store.Contact{jose}},
		{"NÚÑEZ", []store.Contact{jose}},
		{"bjorn", []store.Contact{bjorn}},
		{"olsen", []store.Contact{bjorn}},
		{"zoë", []store.Contact{plain}},
		{"ZOE", []store.Contact{plain}},
		{"smíth", []store.Contact{plain}},
	} {
		wantSearch(t, f.s, f.ws, tc.q, tc.want...)
	}
}

func TestSearchTextWordsArePrefixesOfWords(t *testing.T) {
	f := newFixture(t)
	ana, err := f.s.CreateContact(f.ws, store.ContactInput{Phone: "+14155550001", FirstName: ptr("Ana María"),
		LastName: ptr("López-Ruiz"), Company: ptr("Globex Corp"), Email: ptr("ana.lopez+vip@mail.example.com")})
	if err != nil {
		t.Fatal(err)
	}
	bob := f.contact(t, "+14155550002", "Bob", "Marley")

	for _, tc := range []struct {
		q    string
		want []store.Contact
	}{
		{"maria", []store.Contact{ana}},    // second word of the first name
		{"ruiz", []store.Contact{ana}},     // last name split at -
		{"lopez", []store.Contact{ana}},    // last name and email
		{"glob", []store.Contact{ana}},     // company
		{"corp", []store.Contact{ana}},     // second word of the company
		{"vip", []store.Contact{ana}},      // email split at +
		{"mail", []store.Contact{ana}},     // email split at @
		{"examp", []store.Contact{ana}},    // email split at .
		{"com", []store.Contact{ana}},      // email's last word
		{"ana@mail", []store.Contact{ana}}, // a query piece splits at @ into two words
		{"ana.lop", []store.Contact{ana}},
		{"ana_lop", []store.Contact{ana}},
		{"ana.lopez+vip@mail.example.com", []store.Contact{ana}},
		{"m", []store.Contact{ana, bob}}, // María, mail, Marley
		{"mar", []store.Contact{ana, bob}},
		{"ria", nil},      // not a prefix of any word
		{"opez", nil},     // infix
		{"anamaria", nil}, // words are not concatenated
		{"globexcorp", nil},
		{"bob marley", []store.Contact{bob}}, // every word must match
		{"bob lopez", nil},
		{"MARLEY   bob", []store.Contact{bob}},
		{"@", []store.Contact{ana, bob}}, // no words at all: the unranked listing
	} {
		wantSearch(t, f.s, f.ws, tc.q, tc.want...)
	}
}

func TestSearchDigitWordsOccurAnywhereInThePhone(t *testing.T) {
	f := newFixture(t)
	a := f.contact(t, "+14155550123", "Ana", "A")
	b := f.contact(t, "+12125559876", "Bob", "B")
	c := f.contact(t, "+442071234567", "Cleo", "C")

	for _, tc := range []struct {
		q    string
		want []store.Contact
	}{
		{"0123", []store.Contact{a}},
		{"555-01", []store.Contact{a}},  // 55501
		{"(415)", []store.Contact{a}},   // 415
		{"415.555", []store.Contact{a}}, // 415555
		{"+1415", []store.Contact{a}},
		{"(212) 555-9876", []store.Contact{b}},
		{"555", []store.Contact{a, b}},
		{"1", []store.Contact{a, b, c}},
		{"2071234567", []store.Contact{c}}, // longer than the index's digit suffixes
		{"41555501", []store.Contact{a}},
		{"41555502", nil},
		{"5550124", nil},
		{"0123 ana", []store.Contact{a}}, // digit word AND text word
		{"0123 bob", nil},
		{"9876 b", []store.Contact{b}},
		{"a1", nil}, // not all digits: a text word, and no name starts with it
	} {
		wantSearch(t, f.s, f.ws, tc.q, tc.want...)
	}
}

func TestSearchDigitsInNamesAreTextWords(t *testing.T) {
	f := newFixture(t)
	r2 := f.contact(t, "+14155550001", "R2-D2", "Droid")
	wantSearch(t, f.s, f.ws, "r2", r2)
	wantSearch(t, f.s, f.ws, "R2-D2", r2)
	// A piece of digits alone is a digit word: it must occur in the phone, not the name.
	wantSearch(t, f.s, f.ws, "2") // +14155550001 has no 2
	wantSearch(t, f.s, f.ws, "1", r2)
}

func TestSearchOrder(t *testing.T) {
	f := newFixture(t)
	// Created out of order so that creation order is not display order.
	emma := f.contact(t, "+14155550001", "Emma", "Stone")
	unnamed := f.contact(t, "+14155550002", "", "")
	emile := f.contact(t, "+14155550003", "Émile", "Zola")
	eli := f.contact(t, "+14155550004", "eli", "Wallach")
	lastOnly := f.contact(t, "+14155550005", "", "Adams")
	emmaB := f.contact(t, "+14155550006", "EMMA", "Bunting")
	emmaStone2 := f.contact(t, "+14155550007", "Emma", "Stone")
	unnamed2, err := f.s.CreateContact(f.ws, store.ContactInput{Phone: "+14155550008", Company: ptr("Aardvark Ltd")})
	if err != nil {
		t.Fatal(err)
	}

	// Folded first name, then folded last name, then id (creation order here); a contact with
	// only a last name sorts by its empty first name; contacts with neither name come last
	// even when their company would sort first.
	wantSearch(t, f.s, f.ws, "", lastOnly, eli, emile, emmaB, emma, emmaStone2, unnamed, unnamed2)
	wantSearch(t, f.s, f.ws, "   ", lastOnly, eli, emile, emmaB, emma, emmaStone2, unnamed, unnamed2)
	wantSearch(t, f.s, f.ws, "e", eli, emile, emmaB, emma, emmaStone2)
	wantSearch(t, f.s, f.ws, "555", lastOnly, eli, emile, emmaB, emma, emmaStone2, unnamed, unnamed2)
}

func TestSearchExactEqualityRanksFirst(t *testing.T) {
	f := newFixture(t)
	// Aaron's phone contains Zed's digits; Zed's phone equals them.
	aaron := f.contact(t, "+14155550123", "Aaron", "A")
	zed := f.contact(t, "+1415555012", "Zed", "Z")
	for _, q := range []string{"1415555012", "+1415555012", "+1-415-555-012", "(1415)555012"} {
		wantSearch(t, f.s, f.ws, q, zed, aaron)
	}
	// Pieces that are all digit words are joined: equal to Zed's digits, an exact match.
	for _, q := range []string{"1415 555012", "+1 (415) 555-012", "1 415 555 012", "+1 415.555.012"} {
		wantSearch(t, f.s, f.ws, q, zed, aaron)
	}
	// Joined, they must still equal the whole phone; and every piece must be a digit word.
	wantSearch(t, f.s, f.ws, "415 555012", aaron, zed)
	wantSearch(t, f.s, f.ws, "+1 - 415 555012", aaron, zed)
	// The digits must equal the whole phone, not a part of it.
	wantSearch(t, f.s, f.ws, "415555012", aaron, zed)

	// Email equality, case-insensitively.
	g := newFixture(t)
	al, err := g.s.CreateContact(g.ws, store.ContactInput{Phone: "+14155550001", FirstName: ptr("Al"), Email: ptr("zed@example.com.au")})
	if err != nil {
		t.Fatal(err)
	}
	ze, err := g.s.CreateContact(g.ws, store.ContactInput{Phone: "+14155550002", FirstName: ptr("Zed"), Email: ptr("Zed@Example.com")})
	if err != nil {
		t.Fatal(err)
	}
	wantSearch(t, g.s, g.ws, "zed@example.com", ze, al)
	wantSearch(t, g.s, g.ws, "ZED@EXAMPLE.COM", ze, al)
	wantSearch(t, g.s, g.ws, "  zed@example.com ", ze, al)
	wantSearch(t, g.s, g.ws, "zed@example", al, ze)
	// No exact rank in the unranked listing.
	wantSearch(t, g.s, g.ws, "", al, ze)
}

func TestSearchFormattedPhoneIsExact(t *testing.T) {
	f := newFixture(t)
	// Abe's phone holds every piece of the query but is not equal to it; Zoe's equals it.
	abe := f.contact(t, "+120255501470", "Abe", "A")
	zoe := f.contact(t, "+12025550147", "Zoe", "Z")
	wantSearch(t, f.s, f.ws, "+1 (202) 555-0147", zoe, abe)
}

func TestSearchExactEmailRanksEveryContactWithThatEmail(t *testing.T) {
	f := newFixture(t)
	// Emails are not unique: every contact whose email equals the query ranks first.
	other, err := f.s.CreateContact(f.ws, store.ContactInput{Phone: "+14155550001", FirstName: ptr("Aaron"), Email: ptr("info@shop.com.mx")})
	if err != nil {
		t.Fatal(err)
	}
	y, err := f.s.CreateContact(f.ws, store.ContactInput{Phone: "+14155550002", FirstName: ptr("Yolanda"), Email: ptr("info@shop.com")})
	if err != nil {
		t.Fatal(err)
	}
	z, err := f.s.CreateContact(f.ws, store.ContactInput{Phone: "+14155550003", FirstName: ptr("Zach"), Email: ptr("INFO@shop.com")})
	if err != nil {
		t.Fatal(err)
	}
	wantSearch(t, f.s, f.ws, "info@shop.com", y, z, other)
}

func TestSearchLimit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ins := make([]store.ContactInput, 150)
	for i := range ins {
		ins[i] = store.ContactInput{Phone: fmt.Sprintf("+1415555%04d", i), FirstName: ptr(fmt.Sprintf("Name%03d", 149-i))}
	}
	all, err := store.BulkContacts(f.s, f.ws, ins)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"", "name", "555", "name 555"} {
		got := search(t, f.s, f.ws, q)
		if len(got) != store.SearchLimit {
			t.Errorf("search %q returned %d contacts, want %d of 150", q, len(got), store.SearchLimit)
		}
		wantSameAsReference(t, f.s, f.ws, refPrepare(all), q)
	}
}

func TestSearchFollowsRenames(t *testing.T) {
	f := newFixture(t)
	bob := f.contact(t, "+14155550001", "Bob", "Builder")
	amy := f.contact(t, "+14155550002", "Amy", "Adams")
	wantSearch(t, f.s, f.ws, "", amy, bob)

	renamed, created, err := f.s.UpsertContact(f.ws, store.ContactInput{Phone: bob.Phone(), FirstName: ptr("Robert"),
		Email: ptr("rob@example.com")})
	if err != nil || created {
		t.Fatalf("UpsertContact = created %v, %v; want an update", created, err)
	}
	wantSearch(t, f.s, f.ws, "bob")
	wantSearch(t, f.s, f.ws, "rob", renamed)
	wantSearch(t, f.s, f.ws, "builder", renamed) // the last name was not given, so it stays
	wantSearch(t, f.s, f.ws, "example", renamed)
	wantSearch(t, f.s, f.ws, "rob@example.com", renamed)

	// The order follows the new name: Adams Amy < Robert.
	if _, _, err := f.s.UpsertContact(f.ws, store.ContactInput{Phone: amy.Phone(), FirstName: ptr("Zara")}); err != nil {
		t.Fatal(err)
	}
	got := search(t, f.s, f.ws, "")
	if want := []string{"Robert Builder <+14155550001>", "Zara Adams <+14155550002>"}; !slices.Equal(labels(got), want) {
		t.Errorf("after renames, listing = %q, want %q", labels(got), want)
	}

	// Changing the email drops the old exact match and the old words.
	if _, _, err := f.s.UpsertContact(f.ws, store.ContactInput{Phone: bob.Phone(), Email: ptr("")}); err != nil {
		t.Fatal(err)
	}
	wantSearch(t, f.s, f.ws, "rob@example.com")
	wantSearch(t, f.s, f.ws, "example")
}

func TestSearchStaysInItsWorkspace(t *testing.T) {
	f := newFixture(t)
	g := newFixtureOn(t, f.s)
	mine := f.contact(t, "+14155550001", "Ana", "Mine")
	g.contact(t, "+14155550001", "Ana", "Theirs")
	for _, q := range []string{"", "ana", "0001", "+14155550001", "14155550001"} {
		wantSearch(t, f.s, f.ws, q, mine)
	}
	if got := search(t, f.s, "not-a-workspace", "ana"); len(got) != 0 {
		t.Errorf("search in an unknown workspace = %q, want none", labels(got))
	}
}
