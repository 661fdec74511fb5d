package store

import (
	"math"
	"strings"
	"time"

	"switchboard/store/kv"
)

// PhoneNumber is a workspace's outbound channel. A phone belongs to one workspace in the whole
// installation.
type PhoneNumber struct {
	ID          string    `json:"id"`
	WorkspaceID string    `json:"workspaceId"`
	Phone       string    `json:"phone"`
	Name        string    `json:"name"`
	Active      bool      `json:"active"`
	CreatedAt   time.Time `json:"createdAt"`
	// Carrier is the adapter that sends and receives for this number: sandbox, twilio or telnyx.
	Carrier string `json:"carrier,omitempty"`
	// Rate is the send rate in messages per second (0 = unlimited); nil takes the server's
	// -send-rate (sandbox numbers: unlimited).
	Rate *float64 `json:"rate,omitempty"`
	// Registration is the number's type and carrier registration (NumberRegistration); nil
	// for numbers from before it existed: the defaults apply.
	Registration *NumberRegistration `json:"registration,omitempty"`

	// DailyCap is how many texts the number may send per workspace day (0 = no cap): broadcast
	// copies beyond it wait for the next day.
	DailyCap int `json:"dailyCap,omitempty"`
	// Link ties a number added or bought through the connected carrier account to its resource
	// there; nil for numbers added by hand.
	Link *CarrierLink `json:"link,omitempty"`
}

// CarrierName is the number's carrier; numbers from before carriers existed are sandbox ones.
func (n *PhoneNumber) CarrierName() string {
	if n.Carrier == "" {
		return ProviderSandbox
	}
	return n.Carrier
}

// SendRate is the number's rate in messages per second, 0 meaning unlimited: its own, else
// defaultRate for carriers that bill and throttle, else unlimited for the sandbox.
func (n *PhoneNumber) SendRate(defaultRate float64) float64 {
	switch {
	case n.Rate != nil:
		return *n.Rate
	case n.CarrierName() == ProviderSandbox:
		return 0
	}
	return defaultRate
}

// Carriers a phone number sends through.
const (
	ProviderSandbox = "sandbox"
	ProviderTwilio  = "twilio"
	ProviderTelnyx  = "telnyx"
)

// NumberInput describes a number to add: Carrier "" is sandbox, Rate nil the server's default.
type NumberInput struct {
	Phone   string
	Name    string
	Carrier string
	Rate    *float64
	// Registration, when given, is the number's type and registration (else the defaults).
	Registration *NumberRegistration

	// DailyCap is the number's daily cap, 0 for none.
	DailyCap int
	// Link is the number's resource in the connected carrier account, when it came from there.
	Link *CarrierLink
}

// AddNumber gives a workspace an active sandbox number (see CreateNumber).
func (s *Store) AddNumber(workspaceID, phone, name string) (PhoneNumber, error) {
	return s.CreateNumber(workspaceID, NumberInput{Phone: phone, Name: name})
}

// CreateNumber gives a workspace an active outbound phone number. A phone belongs to one
// workspace in the whole installation: a number another workspace has (or this one has) is
// ErrConflict.
func (s *Store) CreateNumber(workspaceID string, in NumberInput) (PhoneNumber, error) {
	phone := strings.TrimSpace(in.Phone)
	var errs ValidationError
	if !ValidE164(phone) {
		errs = append(errs, FieldError{"phone", E164Message})
	}
	if runeLen(in.Name) > 255 {
		errs = append(errs, FieldError{"name", "must be at most 255 characters"})
	}
	switch in.Carrier {
	case "", ProviderSandbox, ProviderTwilio, ProviderTelnyx:
	default:
		errs = append(errs, FieldError{"carrier", "must be sandbox, twilio or telnyx"})
	}
	if in.Rate != nil && (*in.Rate < 0 || math.IsNaN(*in.Rate) || math.IsInf(*in.Rate, 0)) {
		errs = append(errs, FieldError{"rate", "must be a number of messages per second, 0 or more (0 = unlimited)"})
	}
	if in.Registration != nil {
		r := *in.Registration
		errs = append(errs, r.normalize()...)
		in.Registration = &r
	}
	if msg := CheckDailyCap(in.DailyCap); msg != "" {
		errs = append(errs, FieldError{"dailyCap", msg})
	}
	if errs != nil {
		return PhoneNumber{}, errs
	}
	carrier := in.Carrier
	if carrier == "" {
		carrier = ProviderSandbox
	}
	n := PhoneNumber{ID: s.NewID(), WorkspaceID: workspaceID, Phone: phone, Name: strings.TrimSpace(in.Name),
		Active: true, CreatedAt: s.Now(), Carrier: carrier, Rate: in.Rate, Registration: in.Registration, DailyCap: in.DailyCap, Link: in.Link}
	err := s.updateNow(func(tx *wtx) error {
		if _, err := getWorkspace(tx.Tx, workspaceID); err != nil {
			return err
		}
		if ws, _ := numberOwner(tx.Tx, phone); ws != "" {
			if ws == workspaceID {
				return errorf(ErrConflict, "number %s is already in this workspace", phone)
			}
			return errorf(ErrConflict, "number %s already belongs to another workspace", phone)
		}
		return putNumber(tx.Tx, &n)
	})
	return n, err
}

// putNumber writes a number with its workspace index entry and its installation-wide entry.
func putNumber(tx *kv.Tx, n *PhoneNumber) error {
	if err := tx.Bucket(bNumberPhone).Put(idxKey(n.WorkspaceID, n.Phone, n.ID), nil); err != nil {
		return err
	}
	if err := tx.Bucket(bNumberGlobal).Put([]byte(n.Phone), wsKey(n.WorkspaceID, n.ID)); err != nil {
		return err
	}
	return putJSON(tx.Bucket(bNumbers), wsKey(n.WorkspaceID, n.ID), n)
}

// numberOwner returns the workspace and number id that hold phone anywhere in the installation.
func numberOwner(tx *kv.Tx, phone string) (ws, id string) {
	v := tx.Bucket(bNumberGlobal).Get([]byte(phone))
	if len(v) != 32 {
		return "", ""
	}
	return idFromKey(v[:16]), idFromKey(v)
}

// UpdateNumber renames a number, activates or deactivates it, or changes its rate; nil fields
// stay as they are. A deactivated number sends and receives nothing but keeps its history.
func (s *Store) UpdateNumber(workspaceID, id string, name *string, active *bool, rate *float64) (PhoneNumber, error) {
	var n PhoneNumber
	if name != nil && runeLen(*name) > 255 {
		return n, ValidationError{{"name", "must be at most 255 characters"}}
	}
	if rate != nil && (*rate < 0 || math.IsNaN(*rate) || math.IsInf(*rate, 0)) {
		return n, ValidationError{{"rate", "must be a number of messages per second, 0 or more (0 = unlimited)"}}
	}
	err := s.updateNow(func(tx *wtx) error {
		ok, err := getJSON(tx.Bucket(bNumbers), wsKeyChecked(workspaceID, id), &n)
		if err != nil {
			return err
		}
		if !ok {
			return errorf(ErrNotFound, "number not found")
		}
		if name != nil {
			n.Name = strings.TrimSpace(*name)
		}
		if active != nil {
			n.Active = *active
		}
		if rate != nil {
			n.Rate = rate
		}
		return putJSON(tx.Bucket(bNumbers), wsKey(workspaceID, n.ID), n)
	})
	return n, err
}

// Numbers lists a workspace's phone numbers, oldest first.
func (s *Store) Numbers(workspaceID string) ([]PhoneNumber, error) {
	if _, ok := ParseID(workspaceID); !ok {
		return []PhoneNumber{}, nil
	}
	return s.numbersUnder(idKey(workspaceID))
}

// AllNumbers lists every number of the installation (start-up checks, the admin list).
func (s *Store) AllNumbers() ([]PhoneNumber, error) { return s.numbersUnder(nil) }

// numbersUnder lists the numbers whose keys start with prefix (nil: all).
func (s *Store) numbersUnder(prefix []byte) ([]PhoneNumber, error) {
	out := []PhoneNumber{}
	err := s.view(func(tx *kv.Tx) error {
		return forEachPrefix(tx.Bucket(bNumbers), prefix, func(_, v []byte) error {
			var n PhoneNumber
			if err := jsonUnmarshal(v, &n); err != nil {
				return err
			}
			out = append(out, n)
			return nil
		})
	})
	return out, err
}

// activeNumber returns the workspace's active number with that phone, or false.
func activeNumber(tx *kv.Tx, workspaceID, phone string) (PhoneNumber, bool, error) {
	var n PhoneNumber
	id := idxFirst(tx.Bucket(bNumberPhone), workspaceID, phone)
	if id == "" {
		return n, false, nil
	}
	ok, err := getJSON(tx.Bucket(bNumbers), wsKey(workspaceID, id), &n)
	return n, ok && n.Active, err
}

// isActiveNumber is activeNumber for callers that need only the answer: it decodes just the
// active flag, not the whole record.
func (s *Store) isActiveNumber(tx *kv.Tx, workspaceID, phone string) (bool, error) {
	_, ok, err := s.activeNumberID(tx, workspaceID, phone)
	return ok, err
}

// activeNumberID is the id of the workspace's number with phone, and whether it is active
// ("" when the workspace has no such number). The record is read every time; its flag's
// decoding is kept while its bytes stay the same (recordMemo): every send and
// create-conversation asks.
func (s *Store) activeNumberID(tx *kv.Tx, workspaceID, phone string) (string, bool, error) {
	id := idxFirst(tx.Bucket(bNumberPhone), workspaceID, phone)
	if id == "" {
		return "", false, nil
	}
	key := wsKey(workspaceID, id)
	raw := tx.Bucket(bNumbers).Get(key)
	if raw == nil {
		return id, false, nil
	}
	active, err := s.activeMemo.decode(key, raw, decodeActive)
	return id, active, err
}

// decodeActive decodes only a number record's active flag.
func decodeActive(raw []byte) (bool, error) {
	var n struct {
		Active bool `json:"active"`
	}
	err := jsonUnmarshal(raw, &n)
	return n.Active, err
}

// NumberByPhone finds the active number with that phone and so the workspace that owns it
// (inbound routing), by the installation-wide index.
func (s *Store) NumberByPhone(phone string) (PhoneNumber, error) {
	var n PhoneNumber
	err := s.view(func(tx *kv.Tx) error {
		ws, id := numberOwner(tx, phone)
		ok := false
		if ws != "" {
			var err error
			if ok, err = getJSON(tx.Bucket(bNumbers), wsKey(ws, id), &n); err != nil {
				return err
			}
		}
		if !ok || !n.Active {
			return errorf(ErrNotFound, "number %s is not an active number of any workspace", phone)
		}
		return nil
	})
	return n, err
}

// Number returns a workspace's number by id.
func (s *Store) Number(workspaceID, id string) (PhoneNumber, error) {
	var n PhoneNumber
	err := s.view(func(tx *kv.Tx) error {
		ok, err := getJSON(tx.Bucket(bNumbers), wsKeyChecked(workspaceID, id), &n)
		if err == nil && !ok {
			err = errorf(ErrNotFound, "number not found")
		}
		return err
	})
	return n, err
}

// wsKeyChecked is wsKey for ids that come from outside: a non-ULID gives a key nothing has.
func wsKeyChecked(workspaceID, id string) []byte {
	_, ok1 := ParseID(workspaceID)
	_, ok2 := ParseID(id)
	if !ok1 || !ok2 {
		return []byte{0}
	}
	return wsKey(workspaceID, id)
}

// fromNumberError is the validation error for a `from` that is not the workspace's number.
func fromNumberError(phone string) ValidationError {
	return ValidationError{{"from", "must be an active phone number of this workspace; " + phone + " is not"}}
}
