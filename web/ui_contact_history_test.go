package web

import (
	"net/http"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"switchboard/store"
)

// pageText parses a page and returns the words of each element of the tag (white space
// collapsed), and the href of each link by its words.
func pageText(t *testing.T, body, tag string) ([]string, map[string]string) {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	links := map[string]string{}
	var words func(n *html.Node, b *strings.Builder)
	words = func(n *html.Node, b *strings.Builder) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data + " ")
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			words(c, b)
		}
	}
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode || (n.Data != tag && n.Data != "a") {
			continue
		}
		var b strings.Builder
		words(n, &b)
		text := strings.Join(strings.Fields(b.String()), " ")
		if n.Data == tag {
			texts = append(texts, text)
		}
		if n.Data == "a" {
			for _, a := range n.Attr {
				if a.Key == "href" {
					links[text] = a.Val
				}
			}
		}
	}
	return texts, links
}

// rowWith returns the first text of rows that holds every one of words, or "".
func rowWith(rows []string, words ...string) string {
	for _, r := range rows {
		ok := true
		for _, w := range words {
			ok = ok && strings.Contains(r, w)
		}
		if ok {
			return r
		}
	}
	return ""
}

// TestUIContactHistoryShowsGroupMessages: the contact page's history holds the contact's group
// conversation's message, says who else is in that group, and reaches it through "Older
// messages" when newer texts from another of the workspace's numbers fill the first page.
func TestUIContactHistoryShowsGroupMessages(t *testing.T) {
	e := newUIEnv(t)
	const second = "+14155550177"
	if _, err := e.st.AddNumber(e.a.ID, second, "Second desk"); err != nil {
		t.Fatal(err)
	}
	ana, err := e.st.CreateContact(e.a.ID, store.ContactInput{Phone: "+14155550123", FirstName: ptr("Ana")})
	if err != nil {
		t.Fatal(err)
	}
	bo, _ := e.st.CreateContact(e.a.ID, store.ContactInput{Phone: "+14155550124", FirstName: ptr("Bo")})
	send := func(from, text string, to ...string) {
		t.Helper()
		if _, err := e.st.SendMessage(e.a.ID, store.SendInput{From: from, To: to, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	send(e.numberA, "Welcome, Ana", ana.Phone())
	send(e.numberA, "Picnic on Sunday, bring a friend", ana.Phone(), bo.Phone())
	for range 20 {
		send(second, "Your table is ready", ana.Phone())
	}
	c := e.signIn(t, e.mo)

	res, body := e.send(t, c, "GET", "/contacts/"+ana.ID, nil)
	wantPage(t, "the contact page", res, body, http.StatusOK)
	rows, links := pageText(t, body, "tr")
	if r := rowWith(rows, "Your table is ready", "From (415) 555-0177"); r == "" {
		t.Errorf("the first page lacks the newest 1:1 messages: %q", rows)
	}
	if r := rowWith(rows, "Picnic on Sunday"); r != "" {
		t.Errorf("the first page already shows the older group message: %q", r)
	}
	// The Conversations card lists the group conversation beside the two 1:1 ones.
	items, _ := pageText(t, body, "li")
	for _, want := range [][]string{{"Group with (415) 555-0124", "from (415) 555-0100"}, {"From (415) 555-0177"}, {"From (415) 555-0100", "open"}} {
		if rowWith(items, want...) == "" {
			t.Errorf("the Conversations card lacks %q: %q", want, items)
		}
	}
	older, ok := links["Older messages"]
	if !ok {
		t.Fatalf("no \"Older messages\" link after a full page: %q", links)
	}
	res, body = e.send(t, c, "GET", older, nil)
	wantPage(t, "the older messages", res, body, http.StatusOK)
	rows, links = pageText(t, body, "tr")
	if r := rowWith(rows, "Picnic on Sunday", "Group with (415) 555-0124", "from (415) 555-0100"); r == "" {
		t.Errorf("the second page lacks the group message with its other member: %q", rows)
	}
	if r := rowWith(rows, "Welcome, Ana", "From (415) 555-0100"); r == "" {
		t.Errorf("the second page lacks the first 1:1 message: %q", rows)
	}
	if _, ok := links["Older messages"]; ok {
		t.Error("the last page still offers older messages")
	}
	if newer := links["Newer messages"]; newer != "/contacts/"+ana.ID+"#contact-history-h" {
		t.Errorf("the last page's link back is %q, want the first page", newer)
	}

	// The other member's page shows the same group message, naming Ana.
	_, body = e.send(t, c, "GET", "/contacts/"+bo.ID, nil)
	rows, _ = pageText(t, body, "tr")
	if r := rowWith(rows, "Picnic on Sunday", "Group with (415) 555-0123"); r == "" {
		t.Errorf("Bo's page lacks the group message: %q", rows)
	}
}
