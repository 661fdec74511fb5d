package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"
)

// A contact record is binary, not JSON: at a million contacts the field names, the empty fields
// and the text form of ids and timestamps were most of the file, and the file must stay small.
// The layout is
//
//	version(1) | uvarint num | field…
//
// where num is the contact's number in its workspace's search index (index.Layout) and each
// field is a tag byte and its payload; fields holding their zero value are not written. Strings
// are uvarint length + bytes; times are zig-zag varint nanoseconds, CreatedAt since the epoch and
// every other time as a difference from CreatedAt (usually 0, one byte); ids are their 16 ULID
// bytes. The id and workspace id are the record's key and bucket and are not repeated; the tenant
// id is written only when it is not the installation's. Rare, structured fields (properties,
// addresses) are JSON inside their field.
const contactRecordVersion = 1

const (
	ctFirst byte = 1 + iota
	ctLast
	ctCompany
	ctEmail
	ctAvatar
	ctSource
	ctTenant
	ctFlags
	ctProps
	ctLastIn
	ctLastOut
	ctAddresses
	ctCreated
	ctUpdated
	ctChannel // one inbound channel, a sub-record of chXxx fields ended by chEnd
	ctSourceCode
	ctTimeZone // the contact's own IANA time zone (quiet hours)
	// ctCreatedByID is CreatedAt as the zig-zag varint nanoseconds after the millisecond of the
	// contact's ULID id, which is made at the same moment: 3 bytes or so instead of 9.
	ctCreatedByID
)

// sourceCodes are the known contact sources, written as one byte (ctSourceCode) instead of a
// string; never reorder.
var sourceCodes = []string{SourceAPI, SourceAdmin, SourceInbound, SourceImport}

const (
	chEnd byte = iota
	chID
	chAddress
	chType
	chCarrier
	chContact // only when it is not the contact's own id
	chDefault
	chVerified
	chBlocked
	chBlockedBy
	chCreated
	chUpdated
	chIDText // an id that is not a ULID, kept as written
	chSMS    // CommunicationType "sms", the usual one, with no payload
	chIDNext // a ULID id made just after the contact's: the uvarint that added to the contact's id gives it
)

var errBadRecord = errors.New("store: corrupt contact record")

type recWriter struct{ b []byte }

func (w *recWriter) str(tag byte, s string) {
	if s == "" {
		return
	}
	w.b = append(w.b, tag)
	w.b = binary.AppendUvarint(w.b, uint64(len(s)))
	w.b = append(w.b, s...)
}

func (w *recWriter) bytes(tag byte, p []byte) {
	w.b = append(w.b, tag)
	w.b = binary.AppendUvarint(w.b, uint64(len(p)))
	w.b = append(w.b, p...)
}

// id writes a ULID as 16 bytes under tag, or anything else as text under textTag.
func (w *recWriter) id(tag, textTag byte, s string) {
	if s == "" {
		return
	}
	if u, ok := ParseID(s); ok && u.String() == s { // lower case would come back upper
		w.b = append(w.b, tag)
		w.b = append(w.b, u[:]...)
		return
	}
	w.str(textTag, s)
}

func (w *recWriter) time(tag byte, t, base time.Time) {
	w.b = append(w.b, tag)
	w.b = binary.AppendVarint(w.b, t.Sub(base).Nanoseconds())
}

func (w *recWriter) timePtr(tag byte, t *time.Time, base time.Time) {
	if t != nil {
		w.time(tag, *t, base)
	}
}

// encodeContact writes c's record; tenant is the installation's tenant id.
func encodeContact(c *Contact, num uint32, tenant string) ([]byte, error) {
	w := recWriter{b: make([]byte, 0, 160)}
	w.b = append(w.b, contactRecordVersion)
	w.b = binary.AppendUvarint(w.b, uint64(num))
	w.str(ctFirst, c.FirstName)
	w.str(ctLast, c.LastName)
	w.str(ctCompany, c.Company)
	w.str(ctEmail, c.Email)
	w.str(ctAvatar, c.AvatarURL)
	w.str(ctTimeZone, c.TimeZone)
	if i := slices.Index(sourceCodes, c.Source); i >= 0 {
		w.b = append(w.b, ctSourceCode, byte(i))
	} else {
		w.str(ctSource, c.Source)
	}
	if c.TenantID != tenant {
		// An empty tenant id is written too (as an empty string) so that it decodes as empty.
		w.bytes(ctTenant, []byte(c.TenantID))
	}
	if len(c.Flags) > 0 {
		data, err := json.Marshal(c.Flags)
		if err != nil {
			return nil, err
		}
		w.bytes(ctFlags, data)
	}
	if len(c.Properties) > 0 {
		data, err := json.Marshal(c.Properties)
		if err != nil {
			return nil, fmt.Errorf("store: encode properties: %w", err)
		}
		w.bytes(ctProps, data)
	}
	if len(c.Addresses) > 0 {
		data, err := json.Marshal(c.Addresses)
		if err != nil {
			return nil, err
		}
		w.bytes(ctAddresses, data)
	}
	base := c.CreatedAt
	// CreatedAt is the base of every other time: written as nanoseconds since the epoch.
	if ms, ok := idMillis(c.ID); ok {
		w.b = append(w.b, ctCreatedByID)
		w.b = binary.AppendVarint(w.b, base.UnixNano()-ms*int64(time.Millisecond))
	} else {
		w.b = append(w.b, ctCreated)
		w.b = binary.AppendVarint(w.b, base.UnixNano())
	}
	if !c.UpdatedAt.Equal(base) {
		w.time(ctUpdated, c.UpdatedAt, base)
	}
	w.timePtr(ctLastIn, c.LastInboundMessageTime, base)
	w.timePtr(ctLastOut, c.LastOutboundMessageTime, base)
	for i := range c.InboundChannels {
		ch := &c.InboundChannels[i]
		w.b = append(w.b, ctChannel)
		if d, ok := idDelta(c.ID, ch.ID); ok {
			// The default channel's id is made right after the contact's (insertContact): its
			// distance, a few bytes, instead of its 16.
			w.b = append(w.b, chIDNext)
			w.b = binary.AppendUvarint(w.b, d)
		} else {
			w.id(chID, chIDText, ch.ID)
		}
		w.str(chAddress, ch.Address)
		if ch.CommunicationType == CommSMS {
			w.b = append(w.b, chSMS)
		} else {
			w.str(chType, ch.CommunicationType)
		}
		w.str(chCarrier, ch.Carrier)
		if ch.ContactID != c.ID {
			w.bytes(chContact, []byte(ch.ContactID))
		}
		if ch.IsDefault {
			w.b = append(w.b, chDefault)
		}
		w.timePtr(chVerified, ch.VerifiedAt, base)
		w.timePtr(chBlocked, ch.BlockedAt, base)
		w.str(chBlockedBy, ch.BlockedByID)
		if !ch.CreatedAt.Equal(base) {
			w.time(chCreated, ch.CreatedAt, base)
		}
		if !ch.UpdatedAt.Equal(base) {
			w.time(chUpdated, ch.UpdatedAt, base)
		}
		w.b = append(w.b, chEnd)
	}
	return w.b, nil
}

type recReader struct {
	b   []byte
	err error
}

func (r *recReader) byte() byte {
	if r.err != nil || len(r.b) == 0 {
		r.err = errBadRecord
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *recReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errBadRecord
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *recReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errBadRecord
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *recReader) raw() []byte {
	n := r.uvarint()
	if r.err != nil || n > uint64(len(r.b)) {
		r.err = errBadRecord
		return nil
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

func (r *recReader) str() string { return string(r.raw()) }

func (r *recReader) ulid() string {
	if r.err != nil || len(r.b) < 16 {
		r.err = errBadRecord
		return ""
	}
	u := ulid.ULID(r.b[:16])
	r.b = r.b[16:]
	return u.String()
}

func (r *recReader) time(base time.Time) time.Time {
	return base.Add(time.Duration(r.varint())).UTC()
}

func (r *recReader) timePtr(base time.Time) *time.Time {
	t := r.time(base)
	return &t
}

func (r *recReader) json(v any) {
	data := r.raw()
	if r.err == nil {
		if err := jsonUnmarshal(data, v); err != nil {
			r.err = err
		}
	}
}

// recordNum reads the search index number at the head of a record.
func recordNum(rec []byte) (uint32, error) {
	r := recReader{b: rec}
	if r.byte() != contactRecordVersion {
		return 0, errBadRecord
	}
	n := r.uvarint()
	if r.err != nil || n > 1<<32-1 {
		return 0, errBadRecord
	}
	return uint32(n), nil
}

// decodeContact reads a record written by encodeContact; the result holds no memory of rec.
func decodeContact(rec []byte, id, workspaceID, tenant string) (Contact, uint32, error) {
	c := Contact{ID: id, WorkspaceID: workspaceID, TenantID: tenant, Flags: []string{},
		Properties: map[string]any{}, Addresses: []Address{}, InboundChannels: []InboundChannel{}}
	num, err := recordNum(rec)
	if err != nil {
		return Contact{}, 0, err
	}
	r := recReader{b: rec}
	r.byte()
	r.uvarint()
	var base time.Time
	created := false
	for len(r.b) > 0 && r.err == nil {
		tag := r.byte()
		if tag != ctCreated && tag != ctCreatedByID && !created {
			// Every time is relative to CreatedAt, which encodeContact writes before them; the
			// fields before it hold no times, so they may be read first.
			switch tag {
			case ctUpdated, ctLastIn, ctLastOut, ctChannel:
				return Contact{}, 0, errBadRecord
			}
		}
		switch tag {
		case ctFirst:
			c.FirstName = r.str()
		case ctLast:
			c.LastName = r.str()
		case ctCompany:
			c.Company = r.str()
		case ctEmail:
			c.Email = r.str()
		case ctAvatar:
			c.AvatarURL = r.str()
		case ctTimeZone:
			c.TimeZone = r.str()
		case ctSource:
			c.Source = r.str()
		case ctSourceCode:
			if i := int(r.byte()); i < len(sourceCodes) {
				c.Source = sourceCodes[i]
			} else {
				r.err = errBadRecord
			}
		case ctTenant:
			c.TenantID = r.str()
		case ctFlags:
			r.json(&c.Flags)
		case ctProps:
			r.json(&c.Properties)
		case ctAddresses:
			r.json(&c.Addresses)
		case ctCreated:
			base = time.Unix(0, r.varint()).UTC()
			c.CreatedAt, c.UpdatedAt, created = base, base, true
		case ctCreatedByID:
			d := r.varint()
			u, ok := ParseID(id)
			if !ok {
				r.err = errBadRecord
				break
			}
			base = time.Unix(0, int64(u.Time())*int64(time.Millisecond)+d).UTC()
			c.CreatedAt, c.UpdatedAt, created = base, base, true
		case ctUpdated:
			c.UpdatedAt = r.time(base)
		case ctLastIn:
			c.LastInboundMessageTime = r.timePtr(base)
		case ctLastOut:
			c.LastOutboundMessageTime = r.timePtr(base)
		case ctChannel:
			ch := InboundChannel{ContactID: id, CreatedAt: base, UpdatedAt: base}
			for done := false; !done && r.err == nil; {
				switch r.byte() {
				case chEnd:
					done = true
				case chID:
					ch.ID = r.ulid()
				case chIDText:
					ch.ID = r.str()
				case chIDNext:
					d := r.uvarint()
					if base, ok := ParseID(id); ok && r.err == nil {
						ch.ID = idAfter(base, d).String()
					} else {
						r.err = errBadRecord
					}
				case chAddress:
					ch.Address = r.str()
				case chType:
					ch.CommunicationType = r.str()
				case chSMS:
					ch.CommunicationType = CommSMS
				case chCarrier:
					ch.Carrier = r.str()
				case chContact:
					ch.ContactID = r.str()
				case chDefault:
					ch.IsDefault = true
				case chVerified:
					ch.VerifiedAt = r.timePtr(base)
				case chBlocked:
					ch.BlockedAt = r.timePtr(base)
				case chBlockedBy:
					ch.BlockedByID = r.str()
				case chCreated:
					ch.CreatedAt = r.time(base)
				case chUpdated:
					ch.UpdatedAt = r.time(base)
				default:
					r.err = errBadRecord
				}
			}
			c.InboundChannels = append(c.InboundChannels, ch)
		default:
			r.err = errBadRecord
		}
	}
	if r.err == nil && !created {
		r.err = errBadRecord
	}
	if r.err != nil {
		return Contact{}, 0, fmt.Errorf("store: contact %s: %w", id, r.err)
	}
	// JSON "null" decodes to nil: results always carry [] and {}.
	if c.Flags == nil {
		c.Flags = []string{}
	}
	if c.Properties == nil {
		c.Properties = map[string]any{}
	}
	if c.Addresses == nil {
		c.Addresses = []Address{}
	}
	return c, num, nil
}
