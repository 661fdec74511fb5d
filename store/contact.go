package store

import (
	"maps"
	"strings"

	bolt "go.etcd.io/bbolt"
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
}

// CreateContact adds a contact; a phone already taken in the workspace is ErrConflict.
func (s *Store) CreateContact(workspaceID string, in ContactInput) (Contact, error) {
	var c Contact
	err := s.update(func(tx *bolt.Tx, fx *effects) error {
		if _, err := getWorkspace(tx, workspaceID); err != nil {
			return err
		}
		types, err := propertyTypes(tx, workspaceID)
		if err != nil {
			return err
		}
		if errs := checkProperties(types, in.Properties, false); errs != nil {
			return errs
		}
		if contactIDByPhone(tx, workspaceID, in.Phone) != "" {
			return errorf(ErrConflict, "a contact with phone %s already exists", in.Phone)
		}
		c, err = s.insertContact(tx, fx, workspaceID, in)
		return err
	})
	return c, err
}

// UpsertContact finds the contact by phone and changes only the fields given, or creates it.
func (s *Store) UpsertContact(workspaceID string, in ContactInput) (c Contact, created bool, err error) {
	err = s.update(func(tx *bolt.Tx, fx *effects) error {
		if _, err := getWorkspace(tx, workspaceID); err != nil {
			return err
		}
		c, created, err = s.upsertContact(tx, fx, workspaceID, in, nil)
		return err
	})
	return c, created, err
}

func (s *Store) upsertContact(tx *bolt.Tx, fx *effects, workspaceID string, in ContactInput, types map[string]string) (Contact, bool, error) {
	var err error
	if types == nil {
		if types, err = propertyTypes(tx, workspaceID); err != nil {
			return Contact{}, false, err
		}
	}
	if errs := checkProperties(types, in.Properties, true); errs != nil {
		return Contact{}, false, errs
	}
	id := contactIDByPhone(tx, workspaceID, in.Phone)
	if id == "" {
		props := maps.Clone(in.Properties)
		maps.DeleteFunc(props, func(_ string, v any) bool { return v == nil })
		in.Properties = props
		c, err := s.insertContact(tx, fx, workspaceID, in)
		return c, true, err
	}
	old, err := getContact(tx, workspaceID, id)
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
	for k, v := range in.Properties {
		if v == nil {
			delete(c.Properties, k)
		} else {
			c.Properties[k] = v
		}
	}
	c.UpdatedAt = s.Now()
	if err := s.putContact(tx, &c, &old); err != nil {
		return Contact{}, false, err
	}
	if err := s.emit(tx, fx, workspaceID, EventContactUpdated, contactPayload(&c)); err != nil {
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
func (s *Store) insertContact(tx *bolt.Tx, fx *effects, workspaceID string, in ContactInput) (Contact, error) {
	now := s.Now()
	if in.Source == "" {
		in.Source = SourceAPI
	}
	c := Contact{
		ID: s.NewID(), WorkspaceID: workspaceID, TenantID: s.tenantID,
		FirstName: deref(in.FirstName), LastName: deref(in.LastName), Email: deref(in.Email), Company: deref(in.Company),
		Flags: []string{}, Properties: in.Properties, Source: in.Source, Addresses: []Address{},
		CreatedAt: now, UpdatedAt: now,
	}
	if c.Properties == nil {
		c.Properties = map[string]any{}
	}
	c.InboundChannels = []InboundChannel{{
		ID: s.NewID(), Address: in.Phone, CommunicationType: CommSMS, ContactID: c.ID, IsDefault: true,
		CreatedAt: now, UpdatedAt: now,
	}}
	if err := s.putContact(tx, &c, nil); err != nil {
		return Contact{}, err
	}
	if err := s.emit(tx, fx, workspaceID, EventContactCreated, contactPayload(&c)); err != nil {
		return Contact{}, err
	}
	return c, nil
}

// putContact writes c and moves its index entries from old's (nil for a new contact).
func (s *Store) putContact(tx *bolt.Tx, c *Contact, old *Contact) error {
	ws := c.WorkspaceID
	newDoc := docOf(c)
	if old != nil {
		oldDoc := docOf(old)
		// The email index is keyed by strings.ToLower: "ſ" and "s" are equal under
		// strings.EqualFold but lower to different keys.
		if oldDoc != newDoc || old.Phone() != c.Phone() || strings.ToLower(old.Email) != strings.ToLower(c.Email) {
			if err := deleteContactIndex(tx, old, oldDoc); err != nil {
				return err
			}
			old = nil
		}
	}
	if old == nil {
		if err := putContactIndex(tx, c, newDoc); err != nil {
			return err
		}
	}
	return putJSON(tx.Bucket(bContacts), wsKey(ws, c.ID), c)
}

func orderKey(ws string, d searchDoc, id string) []byte {
	sk := d.sortKey()
	k := make([]byte, 0, 17+len(sk)+16)
	k = append(k, idKey(ws)...)
	k = append(k, 0)
	k = append(k, sk...)
	return append(k, idKey(id)...)
}

func putContactIndex(tx *bolt.Tx, c *Contact, d searchDoc) error {
	ws, id := c.WorkspaceID, c.ID
	if p := c.Phone(); p != "" {
		if err := tx.Bucket(bContactPhone).Put(idxKey(ws, p, id), nil); err != nil {
			return err
		}
	}
	if c.Email != "" {
		if err := tx.Bucket(bContactEmail).Put(idxKey(ws, strings.ToLower(c.Email), id), nil); err != nil {
			return err
		}
	}
	terms, wsID, cid, rank := tx.Bucket(bContactTerms), idKey(ws), [16]byte(idKey(id)), rankOf(d.sortKey())
	for _, t := range d.terms() {
		if err := addTermID(terms, wsID, t, cid, rank); err != nil {
			return err
		}
	}
	enc := d.encode()
	if err := tx.Bucket(bContactOrder).Put(orderKey(ws, d, id), enc); err != nil {
		return err
	}
	return tx.Bucket(bContactDoc).Put(wsKey(ws, id), enc)
}

func deleteContactIndex(tx *bolt.Tx, c *Contact, d searchDoc) error {
	ws, id := c.WorkspaceID, c.ID
	if p := c.Phone(); p != "" {
		if err := tx.Bucket(bContactPhone).Delete(idxKey(ws, p, id)); err != nil {
			return err
		}
	}
	if c.Email != "" {
		if err := tx.Bucket(bContactEmail).Delete(idxKey(ws, strings.ToLower(c.Email), id)); err != nil {
			return err
		}
	}
	terms, wsID, cid := tx.Bucket(bContactTerms), idKey(ws), [16]byte(idKey(id))
	for _, t := range d.terms() {
		if err := removeTermID(terms, wsID, t, cid); err != nil {
			return err
		}
	}
	if err := tx.Bucket(bContactOrder).Delete(orderKey(ws, d, id)); err != nil {
		return err
	}
	return tx.Bucket(bContactDoc).Delete(wsKey(ws, id))
}

func contactIDByPhone(tx *bolt.Tx, workspaceID, phone string) string {
	return idxFirst(tx.Bucket(bContactPhone), workspaceID, phone)
}

func getContact(tx *bolt.Tx, workspaceID, id string) (Contact, error) {
	var c Contact
	ok, err := getJSON(tx.Bucket(bContacts), wsKey(workspaceID, id), &c)
	if err == nil && !ok {
		err = errorf(ErrNotFound, "contact not found")
	}
	return c, err
}

// Contact returns a contact by id.
func (s *Store) Contact(workspaceID, id string) (Contact, error) {
	var c Contact
	err := s.db.View(func(tx *bolt.Tx) error {
		var err error
		c, err = getContact(tx, workspaceID, id)
		return err
	})
	return c, err
}

// ContactByPhone returns the workspace's contact with that phone.
func (s *Store) ContactByPhone(workspaceID, phone string) (Contact, error) {
	var c Contact
	err := s.db.View(func(tx *bolt.Tx) error {
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
func (s *Store) ensureContact(tx *bolt.Tx, fx *effects, workspaceID, phone, source string) (Contact, error) {
	if id := contactIDByPhone(tx, workspaceID, phone); id != "" {
		return getContact(tx, workspaceID, id)
	}
	return s.insertContact(tx, fx, workspaceID, ContactInput{Phone: phone, Source: source})
}
