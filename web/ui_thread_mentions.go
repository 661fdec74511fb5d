package web

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"switchboard/internal/textfold"
	"switchboard/views"
)

// memberOptions are the workspace's members, each by user id with their name (their e-mail
// when they have none), in name order: the thread's mention and assign choices.
func (h *Handler) memberOptions(u *ui) ([]views.Option, error) {
	members, err := h.store.Members(u.ws.ID)
	if err != nil {
		return nil, err
	}
	out := make([]views.Option, 0, len(members))
	for _, m := range members {
		usr, err := h.store.User(m.UserID)
		if err != nil {
			continue
		}
		name := usr.Name
		if name == "" {
			name = usr.Email
		}
		out = append(out, views.Option{Value: usr.ID, Label: name})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Label < out[j].Label })
	return out, nil
}

// mentionReach bounds how much text after an @ is compared with the members' names.
const mentionReach = 200

// mentionedMembers are the ids of the members text mentions by name, in the order mentioned:
// an @ that starts a word (not the one inside an e-mail address), followed by a member's whole
// name ("@Ana Lima", any case, accents and spacing), or by a first name that only one member
// has ("@Ana"). The longest name wins, so "@Ana Lima" is Ana Lima even beside an Ana.
func mentionedMembers(text string, members []views.Option) []string {
	type name struct{ id, full, first string }
	names := make([]name, 0, len(members))
	firsts := map[string]int{}
	for _, m := range members {
		full := foldWords(m.Label)
		if full == "" {
			continue
		}
		first, _, _ := strings.Cut(full, " ")
		names = append(names, name{m.Value, full, first})
		firsts[first]++
	}
	sort.SliceStable(names, func(i, j int) bool { return len(names[i].full) > len(names[j].full) })
	var out []string
	seen := map[string]bool{}
	for i := 0; i < len(text); i++ {
		if text[i] != '@' {
			continue
		}
		if prev, _ := utf8.DecodeLastRuneInString(text[:i]); i > 0 && (isWordRune(prev) || strings.ContainsRune("._-+", prev)) {
			continue // an address: ana@acme.example
		}
		rest := text[i+1:]
		if len(rest) > mentionReach {
			rest = rest[:mentionReach]
		}
		rest = foldWords(strings.ToValidUTF8(rest, ""))
		id := ""
		for _, n := range names {
			if wordPrefix(rest, n.full) {
				id = n.id
				break
			}
		}
		if id == "" {
			for _, n := range names {
				if firsts[n.first] == 1 && wordPrefix(rest, n.first) {
					id = n.id
					break
				}
			}
		}
		if id != "" && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// foldWords is s folded (case and accents) with its white space made single spaces.
func foldWords(s string) string { return strings.Join(strings.Fields(textfold.Fold(s)), " ") }

// wordPrefix reports whether s starts with p and p ends a word there.
func wordPrefix(s, p string) bool {
	if p == "" || !strings.HasPrefix(s, p) {
		return false
	}
	next, _ := utf8.DecodeRuneInString(s[len(p):])
	return len(s) == len(p) || !isWordRune(next)
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
