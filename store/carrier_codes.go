package store

import (
	"strconv"
	"strings"
	"time"

	"switchboard/store/kv"
)

// CarrierExplanation says in plain words what a carrier error code means and what to do.
type CarrierExplanation struct {
	Code int
	What string
	Do   string
}

// carrierExplanations are Twilio's error codes a team meets most, in plain words. The sandbox
// speaks the same codes.
var carrierExplanations = map[int]CarrierExplanation{
	30003: {30003, "The phone was unreachable: switched off, out of coverage or no longer in service.", "Try again later; if it keeps failing, ask the contact for another number."},
	30005: {30005, "The number is unknown to its carrier: it does not exist or is no longer in service.", "Check the number with the contact and correct it."},
	30006: {30006, "The number is a landline or its carrier cannot receive texts.", "Call the contact instead, or ask for a mobile number. Broadcasts now skip this number."},
	30007: {30007, "The carrier filtered the message, for its content or its links (spam filtering).", "Rewrite the text: drop link shorteners and words that read as spam, name your business, and make sure the number is registered (10DLC or toll-free verification)."},
	30032: {30032, "The toll-free number is not verified, so carriers refuse its texts.", "Submit or finish the toll-free verification for this number (Settings → Numbers shows its status)."},
	30034: {30034, "The number is not registered for A2P 10DLC, so US carriers block its texts.", "Register a brand and a campaign for this number with your carrier (Settings → Numbers)."},
	30035: {30035, "The number's A2P 10DLC registration is still pending.", "Wait for the campaign to be approved before texting from this number, or send from an approved one."},
	21610: {21610, "The recipient unsubscribed (they replied STOP to this number): the carrier refuses texts to them.", "Nothing to do: the opt-out is recorded. Only the contact can undo it, by texting START."},
	21614: {21614, "The number is not a mobile number and cannot receive texts.", "Call the contact instead, or ask for a mobile number. Broadcasts now skip this number."},
}

// CarrierErrorCode reads the code of a message's provider error ("twilio 30007: …", "twilio
// 30007", "sandbox 21610: …"); 0 when there is none.
func CarrierErrorCode(providerErr string) int {
	f := strings.Fields(providerErr)
	if len(f) < 2 {
		return 0
	}
	code, err := strconv.Atoi(strings.TrimSuffix(f[1], ":"))
	if err != nil {
		return 0
	}
	return code
}

// ExplainCarrierError explains a message's provider error in plain words; false for a code it
// does not know (the raw error is shown then).
func ExplainCarrierError(providerErr string) (CarrierExplanation, bool) {
	e, ok := carrierExplanations[CarrierErrorCode(providerErr)]
	return e, ok
}

// landlineCode reports whether a failure proves the number cannot take texts (30006 landline or
// unreachable carrier, 21614 not a mobile number).
func landlineCode(providerErr string) bool {
	c := CarrierErrorCode(providerErr)
	return c == 30006 || c == 21614
}

// NumberFlag marks a contact's number that cannot take texts. It is kept by phone, like
// opt-outs, in the transaction that records the failure that proved it.
type NumberFlag struct {
	Phone     string    `json:"phone"`
	Flag      string    `json:"flag"` // landline
	Code      int       `json:"code"`
	MessageID string    `json:"messageId"`
	At        time.Time `json:"at"`
}

// FlagLandline is the flag of a number that is a landline or not a mobile number.
const FlagLandline = "landline"

func numberFlagKey(workspaceID, phone string) []byte { return append(idKey(workspaceID), phone...) }

// flagLandline records m's recipient as a landline when m's failure proves it.
func flagLandline(tx *kv.Tx, m *Message, at time.Time) error {
	if m.To == "" || !landlineCode(m.ProviderErr) {
		return nil
	}
	return putJSON(tx.Bucket(bNumberFlags), numberFlagKey(m.WorkspaceID, m.To),
		NumberFlag{Phone: m.To, Flag: FlagLandline, Code: CarrierErrorCode(m.ProviderErr), MessageID: m.ID, At: at})
}

func numberFlag(tx *kv.Tx, workspaceID, phone string) (NumberFlag, bool) {
	var f NumberFlag
	ok, err := getJSON(tx.Bucket(bNumberFlags), numberFlagKey(workspaceID, phone), &f)
	return f, ok && err == nil
}

// NumberFlagOf returns phone's flag (a landline); false when the number is not flagged.
func (s *Store) NumberFlagOf(workspaceID, phone string) (NumberFlag, bool, error) {
	var f NumberFlag
	ok := false
	err := s.view(func(tx *kv.Tx) error {
		if _, valid := ParseID(workspaceID); valid {
			f, ok = numberFlag(tx, workspaceID, phone)
		}
		return nil
	})
	return f, ok, err
}

// countFailure counts a failed copy under its carrier error code.
func (b *Broadcast) countFailure(providerErr string) {
	if b.FailedByCode == nil {
		b.FailedByCode = map[int]int{}
	}
	b.FailedByCode[CarrierErrorCode(providerErr)]++
}
