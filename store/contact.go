package store

import (
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"switchboard/store/internal/index"
	"switchboard/store/kv"
)

// Address is a postal address of a contact.
type Address struct {
	ID               string `json:"id"`
	Object           string `json:"object"`
	Street           string `json:"street"`
	City             string `json:"city"`
	State            string `json:"state"`
	Country          string `json:"country"`
	CountryCode      string `json:"countryCode"`
	PostalCode       string `json:"postalCode"`
	PostalCodeSuffix string `json:"postalCodeSuffix"`
	DefaultBilling   bool   `json:"defaultBilling"`
	DefaultShipping  bool   `json:"defaultShipping"`
}

// InboundChannel is an address (a phone number) a contact writes from.
type InboundChannel struct {
	ID                string     `json:"id"`
	Address           string     `json:"address"`
	CommunicationType string     `json:"communicationType"`
	Carrier           string     `json:"carrier"`
	ContactID         string     `json:"contactId"`
	IsDefault         bool       `json:"isDefault"`
	VerifiedAt        *time.Time `json:"verifiedAt,omitempty"`
	BlockedAt         *time.Time `json:"blockedAt,omitempty"`
	BlockedByID       string     `json:"blockedById,omitempty"`
	CreatedAt         time.Time  `json:"createdAt"`
	UpdatedAt         time.Time  `json:"updatedAt"`
}

// Contact is a person a workspace texts with.
type Contact struct {
	ID                      string           `json:"id"`
	WorkspaceID             string           `json:"workspaceId"`
	TenantID                string           `json:"tenantId"`
	FirstName               string           `json:"firstName"`
	LastName                string           `json:"lastName"`
	Company                 string           `json:"company"`
	Email                   string           `json:"email"`
	AvatarURL               string           `json:"avatarUrl"`
	Flags                   []string         `json:"flags"`
	Properties              map[string]any   `json:"properties"`
	Source                  string           `json:"source"`
	TimeZone                string           `json:"timeZone,omitempty"` // IANA name; "" derives it from the phone
	LastInboundMessageTime  *time.Time       `json:"lastInboundMessageTime,omitempty"`
	LastOutboundMessageTime *time.Time       `json:"lastOutboundMessageTime,omitempty"`
	Addresses               []Address        `json:"addresses"`
	InboundChannels         []InboundChannel `json:"inboundChannels"`
	CreatedAt               time.Time        `json:"createdAt"`
	UpdatedAt               time.Time        `json:"updatedAt"`
}

// Phone is the address of the contact's default inbound channel.
func (c *Contact) Phone() string {
	for _, ch := range c.InboundChannels {
		if ch.IsDefault {
			return ch.Address
		}
	}
	if len(c.InboundChannels) > 0 {
		return c.InboundChannels[0].Address
	}
	return ""
}

// Communication types of a contact's inbound channels.
const (
	CommSMS   = "sms"
	CommEmail = "email"
	CommChat  = "chat"
)

// Sources: where a contact came from.
const (
	SourceAPI     = "api"
	SourceAdmin   = "admin"
	SourceInbound = "inbound"
	SourceImport  = "import"
)

// ContactInput creates or changes a contact. Nil pointers are fields not given; a nil value in
// Properties removes that key (create-or-update only).
type ContactInput struct {
	Phone      string
	FirstName  *string
	LastName   *string
	Email      *string
	Company    *string
	Properties map[string]any
	Source     string
	TimeZone   *string // IANA name; "" clears it (the phone's zone applies again)
	// Consent, when given, is added to the number's consent history with the contact's write.
	Consent *ConsentInput
	// ConsentBy is the user recording the consent ("" for an integration).
	ConsentBy string
}

// checkTimeZone refuses a time zone that is not an IANA name.
func (in *ContactInput) checkTimeZone() error {
	if in.TimeZone != nil && *in.TimeZone != "" && !ValidTimeZone(*in.TimeZone) {
		return ValidationError{{"timeZone", "must be an IANA time zone such as America/New_York"}}
	}
	return nil
}

// CreateContact adds a contact; a phone already taken in the workspace is ErrConflict.
func (s *Store) CreateContact(workspaceID string, in ContactInput) (Contact, error) {
	var c Contact
	if err := in.checkTimeZone(); err != nil {
		return c, err
	}
	consent, err := s.consentEntry(&in)
	if err != nil {
		return c, err
	}
	err = s.update(func(tx *wtx) error {
		if _, err := getWorkspace(tx.Tx, workspaceID); err != nil {
			return err
		}
		types, err := propertyTypes(tx.Tx, workspaceID)
		if err != nil {
			return err
		}
		if errs := checkProperties(types, in.Properties, false); errs != nil {
			return errs
		}
		if contactIDByPhone(tx.Tx, workspaceID, in.Phone) != "" {
			return errorf(ErrConflict, "a contact with phone %s already exists", in.Phone)
		}
		c, err = s.insertContact(tx, workspaceID, in)
		if err != nil || consent == nil {
			return err
		}
		return s.addConsent(tx.Tx, workspaceID, c.Phone(), *consent)
	})
	return c, err
}

// UpsertContact finds the contact by phone and changes only the fields given, or creates it.
func (s *Store) UpsertContact(workspaceID string, in ContactInput) (c Contact, created bool, err error) {
	if err := in.checkTimeZone(); err != nil {
		return c, false, err
	}
	consent, err := s.consentEntry(&in)
	if err != nil {
		return c, false, err
	}
	err = s.update(func(tx *wtx) error {
		if _, err := getWorkspace(tx.Tx, workspaceID); err != nil {
			return err
		}
		c, created, err = s.upsertContact(tx, workspaceID, in, nil)
		if err != nil || consent == nil {
			return err
		}
		return s.addConsent(tx.Tx, workspaceID, c.Phone(), *consent)
	})
	return c, created, err
}

func (s *Store) upsertContact(tx *wtx, workspaceID string, in ContactInput, types map[string]string) (Contact, bool, error) {
	var err error
	if types == nil {
		if types, err = propertyTypes(tx.Tx, workspaceID); err != nil {
			return Contact{}, false, err
		}
	}
	if errs := checkProperties(types, in.Properties, true); errs != nil {
		return Contact{}, false, errs
	}
	if tx.postings.PendingPhone(in.Phone) {
		// A phone repeated in an import batch: its earlier row's entries are written first, so
		// that the lookup finds that contact.
		if err := tx.postings.Flush(tx.Tx, &tx.sets); err != nil {
			return Contact{}, false, err
		}
	}
	id := contactIDByPhone(tx.Tx, workspaceID, in.Phone)
	if id == "" {
		props := maps.Clone(in.Properties)
		maps.DeleteFunc(props, func(_ string, v any) bool { return v == nil })
		in.Properties = props
		c, err := s.insertContact(tx, workspaceID, in)
		return c, true, err
	}
	old, err := getContact(tx.Tx, workspaceID, id)
	if err != nil {
		return Contact{}, false, err
	}
	c := old
	c.Properties = maps.Clone(old.Properties)
	if c.Properties == nil {
		c.Properties = map[string]any{}
	}
	setIf(&c.FirstName, in.FirstName)
	setIf(&c.LastName, in.LastName)
	setIf(&c.Email, in.Email)
	setIf(&c.Company, in.Company)
	if in.TimeZone != nil {
		c.TimeZone = *in.TimeZone
	}
	for k, v := range in.Properties {
		if v == nil {
			delete(c.Properties, k)
		} else {
			c.Properties[k] = v
		}
	}
	c.UpdatedAt = s.Now()
	// Postings buffered for contacts created earlier in this transaction must be in place
	// before this contact's are moved: it may be one of them.
	if err := tx.postings.Flush(tx.Tx, &tx.sets); err != nil {
		return Contact{}, false, err
	}
	if err := s.putContact(tx, &c, &old); err != nil {
		return Contact{}, false, err
	}
	if err := s.emit(tx, workspaceID, EventContactUpdated, contactPayload(&c)); err != nil {
		return Contact{}, false, err
	}
	return c, false, nil
}

func setIf(dst *string, v *string) {
	if v != nil {
		*dst = strings.TrimSpace(*v)
	}
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return strings.TrimSpace(*p)
}

// insertContact writes a new contact with its default inbound channel, its index entries and
// its contact.created event.
func (s *Store) insertContact(tx *wtx, workspaceID string, in ContactInput) (Contact, error) {
	now := s.Now()
	if in.Source == "" {
		in.Source = SourceAPI
	}
	c := Contact{
		ID: s.NewID(), WorkspaceID: workspaceID, TenantID: s.tenantID,
		FirstName: deref(in.FirstName), LastName: deref(in.LastName), Email: deref(in.Email), Company: deref(in.Company),
		TimeZone: deref(in.TimeZone), Flags: []string{}, Properties: in.Properties, Source: in.Source, Addresses: []Address{},
		CreatedAt: now, UpdatedAt: now,
	}
	if c.Properties == nil {
		c.Properties = map[string]any{}
	}
	c.InboundChannels = []InboundChannel{{
		ID: s.NewID(), Address: in.Phone, CommunicationType: CommSMS, ContactID: c.ID, IsDefault: true,
		CreatedAt: now, UpdatedAt: now,
	}}
	if err := s.putContactWith(tx, &c, nil, tx.postings); err != nil {
		return Contact{}, err
	}
	if err := s.emit(tx, workspaceID, EventContactCreated, contactPayload(&c)); err != nil {
		return Contact{}, err
	}
	return c, nil
}

// putContact writes c and moves its index entries from old's (nil for a new contact).
func (s *Store) putContact(tx *wtx, c *Contact, old *Contact) error {
	return s.putContactWith(tx, c, old, nil)
}

// putContactWith is putContact collecting a new contact's postings in buf, when not nil,
// instead of writing them at once.
func (s *Store) putContactWith(tx *wtx, c *Contact, old *Contact, buf *index.ImportBuf) error {
	ws := idKey(c.WorkspaceID)
	fill := index.FillAppend
	if buf != nil {
		fill = index.FillBulk // an import's records fill their pages
	}
	recs, err := index.WsBucketW(tx.Tx, bContacts, ws, fill)
	if err != nil {
		return err
	}
	id := [16]byte(idKey(c.ID))
	var num uint32
	if old == nil {
		prep := index.PrepOf(docOf(c))
		if num, err = tx.idx.NewNum(tx.Tx, ws); err != nil {
			return err
		}
		if err := tx.idx.PutContact(tx.Tx, &tx.sets, ws, indexEntry(c), num, prep, buf); err != nil {
			return err
		}
	} else {
		if num, err = recordNum(recs.Get(id[:])); err != nil {
			return fmt.Errorf("store: contact %s: %w", c.ID, err)
		}
		oldDoc, newDoc := docOf(old), docOf(c)
		// The email index is keyed by strings.ToLower: "ſ" and "s" are equal under
		// strings.EqualFold but lower to different keys.
		if oldDoc != newDoc || old.Phone() != c.Phone() || strings.ToLower(old.Email) != strings.ToLower(c.Email) {
			if err := tx.idx.DeleteContact(tx.Tx, &tx.sets, ws, indexEntry(old), num, oldDoc); err != nil {
				return err
			}
			if err := tx.idx.PutContact(tx.Tx, &tx.sets, ws, indexEntry(c), num, index.PrepOf(newDoc), nil); err != nil {
				return err
			}
		}
	}
	rec, err := encodeContact(c, num, tenantOf(tx.Tx))
	if err != nil {
		return err
	}
	return recs.Put(id[:], rec)
}

// contactIDByPhone is the id of the workspace's contact whose phone is phone, "" when none.
func contactIDByPhone(tx *kv.Tx, workspaceID, phone string) string {
	if id, ok := indexLayout.PhoneID(tx, idKey(workspaceID), phone); ok {
		return ulid.ULID(id).String()
	}
	return ""
}

// indexEntry is what the engine indexes of c beside its Doc.
func indexEntry(c *Contact) index.Entry {
	return index.Entry{ID: [16]byte(idKey(c.ID)), Phone: c.Phone(), Email: c.Email}
}

// tenantOf is the installation's tenant id, which contact records leave out.
func tenantOf(tx *kv.Tx) string {
	return string(tx.Bucket(bMeta).Get(metaTenantID))
}

func getContact(tx *kv.Tx, workspaceID, id string) (Contact, error) {
	c, _, err := getContactNum(tx, workspaceID, id)
	return c, err
}

func getContactNum(tx *kv.Tx, workspaceID, id string) (Contact, uint32, error) {
	u, ok := ParseID(id)
	recs := index.WsBucket(tx, bContacts, idKey(workspaceID))
	if !ok || recs == nil {
		return Contact{}, 0, errorf(ErrNotFound, "contact not found")
	}
	v := recs.Get(u[:])
	if v == nil {
		return Contact{}, 0, errorf(ErrNotFound, "contact not found")
	}
	return decodeContact(v, u.String(), workspaceID, tenantOf(tx))
}

// Contact returns a contact by id.
func (s *Store) Contact(workspaceID, id string) (Contact, error) {
	var c Contact
	err := s.view(func(tx *kv.Tx) error {
		var err error
		c, err = getContact(tx, workspaceID, id)
		return err
	})
	return c, err
}

// ContactByPhone returns the workspace's contact with that phone.
func (s *Store) ContactByPhone(workspaceID, phone string) (Contact, error) {
	var c Contact
	err := s.view(func(tx *kv.Tx) error {
		id := contactIDByPhone(tx, workspaceID, phone)
		if id == "" {
			return errorf(ErrNotFound, "contact not found")
		}
		var err error
		c, err = getContact(tx, workspaceID, id)
		return err
	})
	return c, err
}

// ensureContact returns the contact of phone, creating an unnamed one with that inbound
// channel when there is none.
func (s *Store) ensureContact(tx *wtx, workspaceID, phone, source string) (Contact, error) {
	if id := contactIDByPhone(tx.Tx, workspaceID, phone); id != "" {
		return getContact(tx.Tx, workspaceID, id)
	}
	return s.insertContact(tx, workspaceID, ContactInput{Phone: phone, Source: source})
}
