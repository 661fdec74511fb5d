package store

import (
	"strings"

	"switchboard/store/kv"
)

// CopyPreview is what a broadcast's copies would be if it went out now: how many numbers get
// one, and the copy that takes the most SMS segments, as it goes out (merge tags filled in for
// its contact, the opt-out instructions appended when asked for).
type CopyPreview struct {
	// Recipients counts the numbers that would get a copy: the targets resolved, opted-out and
	// landline-flagged numbers left out.
	Recipients int
	// Text is the longest copy in segments (the first in number order among equals); Phone
	// and Name are whom it goes to (Name "" for a number without a named contact).
	Text, Phone, Name string
	Segments          int
	Encoding          string
}

// PreviewBroadcast renders the copies of text that a broadcast to t would send and returns the
// worst case over its recipients, the copy a team should judge the cost by. Ids of t that are
// not the workspace's are left out, as a draft in the compose form may hold them; nothing is
// written. A text without merge tags reads no contact record beyond what resolving the targets
// reads.
func (s *Store) PreviewBroadcast(workspaceID, text string, optOutInstructions bool, t BroadcastTargets) (CopyPreview, error) {
	var p CopyPreview
	if _, ok := ParseID(workspaceID); !ok {
		return p, errorf(ErrNotFound, "workspace not found")
	}
	b := Broadcast{Text: text, OptOutInstructions: optOutInstructions}
	tmpl, err := ParseTemplate(text)
	if err != nil {
		tmpl = Template{} // compose shows the text's own error; the copy would go as written
	}
	err = s.view(func(tx *kv.Tx) error {
		phones, err := resolveRecipients(tx, workspaceID, &t)
		if err != nil {
			return err
		}
		for _, ph := range phones {
			out, err := s.isOptedOut(tx, workspaceID, ph)
			if err != nil {
				return err
			}
			if _, flagged := numberFlag(tx, workspaceID, ph); out || flagged {
				continue
			}
			p.Recipients++
			if !tmpl.HasTags() && p.Recipients > 1 {
				continue // every copy is the same text
			}
			var c Contact
			if id := contactIDByPhone(tx, workspaceID, ph); id != "" {
				if c, err = getContact(tx, workspaceID, id); err != nil {
					return err
				}
			}
			copyText := renderCopy(tmpl, &b, &c, ph)
			if n := Segments(copyText); p.Recipients == 1 || n > p.Segments {
				p.Text, p.Phone, p.Segments, p.Encoding = copyText, ph, n, SMSEncoding(copyText)
				p.Name = strings.TrimSpace(c.FirstName + " " + c.LastName)
			}
		}
		return nil
	})
	return p, err
}

// WithOptOutInstructions is a copy's text as it goes out when "Add opt-out instructions" is on.
func WithOptOutInstructions(text string) string {
	return withOptOutInstruction(&Broadcast{OptOutInstructions: true}, text)
}
