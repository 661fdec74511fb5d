package store

import (
	"bytes"
	"net/mail"
	"sort"
	"strings"
	"time"

	"switchboard/store/kv"
)

// Invitation asks someone by email to join a workspace; it expires after seven days.
type Invitation struct {
	ID               string     `json:"id"`
	WorkspaceID      string     `json:"workspaceId"`
	TenantID         string     `json:"tenantId"`
	Email            string     `json:"email"`
	Status           string     `json:"status"`
	UserMembershipID string     `json:"userMembershipId"`
	ExpiredAt        time.Time  `json:"expiredAt"`
	CreatedAt        time.Time  `json:"createdAt"`
	UpdatedAt        time.Time  `json:"updatedAt"`
	DeletedAt        *time.Time `json:"deletedAt,omitempty"`
}

// Invitation statuses.
const (
	InvitationPending  = "pending"
	InvitationAccepted = "accepted"
	InvitationExpired  = "expired"
	InvitationRevoked  = "revoked"
)

// InvitationTTL is how long an invitation link may be used: 7 days, then it expires.
const InvitationTTL = 7 * 24 * time.Hour

// InvitationEntry is an invitation with the role it grants. Status is as of now: a pending
// invitation past its ExpiredAt reads as expired.
type InvitationEntry struct {
	Invitation
	Role string `json:"role"`
	// Replaced is how many pending invitations to the same address the new one revoked (in
	// CreateInvitation's answer only).
	Replaced int `json:"-"`
}

// invitationRecord is what bInvitations keeps under wsKey(workspace, id); the one-time token is
// kept only as its SHA-256 hash, under invTokenKey(hash) → wsKey(workspace, id).
type invitationRecord struct {
	InvitationEntry
	TokenHash []byte `json:"tokenHash"`
}

func invTokenKey(hash []byte) []byte { return append([]byte("t"), hash...) }

func (r *invitationRecord) current(now time.Time) InvitationEntry {
	e := r.InvitationEntry
	if e.Status == InvitationPending && !now.Before(e.ExpiredAt) {
		e.Status = InvitationExpired
	}
	return e
}

// CreateInvitation invites email to workspaceID with role (admin or member); the plain one-time
// token, for the link /invite/{token}, is returned only now. A mailFor given queues the
// invitation e-mail in the same transaction. An address that is a member's already is refused
// (a validation error on email); pending invitations to the same address are revoked, so that
// only the newest link works, and counted in the answer's Replaced.
func (s *Store) CreateInvitation(workspaceID, email, role string, mailFor ...MailFor) (InvitationEntry, string, error) {
	email = strings.TrimSpace(email)
	var errs ValidationError
	if addr, err := mail.ParseAddress(email); err != nil || addr.Address != email || len(email) > 254 {
		errs = append(errs, FieldError{"email", "must be an email address such as ana@example.com"})
	}
	if role != "admin" && role != "member" {
		errs = append(errs, FieldError{"role", "must be admin or member"})
	}
	if errs != nil {
		return InvitationEntry{}, "", errs
	}
	plain := RandomToken("sbi_")
	now := s.Now()
	rec := invitationRecord{TokenHash: HashToken(plain)}
	rec.Invitation = Invitation{ID: s.NewID(), WorkspaceID: workspaceID, TenantID: s.tenantID, Email: email,
		Status: InvitationPending, ExpiredAt: now.Add(InvitationTTL), CreatedAt: now, UpdatedAt: now}
	rec.Role = role
	err := s.updateNow(func(tx *wtx) error {
		if _, err := getWorkspace(tx.Tx, workspaceID); err != nil {
			return err
		}
		if id := tx.Bucket(bUserEmail).Get([]byte(strings.ToLower(email))); id != nil && isMember(tx.Tx, workspaceID, string(id)) {
			return tx.refuse(ValidationError{{"email", email + " is a member of this workspace already"}})
		}
		b := tx.Bucket(bInvitations)
		var earlier []invitationRecord
		if err := forEachPrefix(b, idKey(workspaceID), func(k, v []byte) error {
			var old invitationRecord
			if len(k) != 32 {
				return nil
			}
			if err := jsonUnmarshal(v, &old); err != nil {
				return err
			}
			if strings.EqualFold(old.Email, email) && old.current(now).Status == InvitationPending {
				earlier = append(earlier, old)
			}
			return nil
		}); err != nil {
			return err
		}
		rec.Replaced = len(earlier)
		for _, old := range earlier {
			old.Status, old.UpdatedAt = InvitationRevoked, now
			if err := putJSON(b, wsKey(workspaceID, old.ID), old); err != nil {
				return err
			}
		}
		if err := b.Put(invTokenKey(rec.TokenHash), wsKey(workspaceID, rec.ID)); err != nil {
			return err
		}
		for _, f := range mailFor {
			if err := s.queueLinkMail(tx.Tx, f, plain); err != nil {
				return err
			}
		}
		return putJSON(b, wsKey(workspaceID, rec.ID), rec)
	})
	return rec.current(now), plain, err
}

// Invitations lists a workspace's invitations, newest first.
func (s *Store) Invitations(workspaceID string) ([]InvitationEntry, error) {
	out := []InvitationEntry{}
	if _, ok := ParseID(workspaceID); !ok {
		return out, nil
	}
	now := s.Now()
	err := s.view(func(tx *kv.Tx) error {
		return forEachPrefix(tx.Bucket(bInvitations), idKey(workspaceID), func(k, v []byte) error {
			if len(k) != 32 {
				return nil
			}
			var rec invitationRecord
			if err := jsonUnmarshal(v, &rec); err != nil {
				return err
			}
			out = append(out, rec.current(now))
			return nil
		})
	})
	sort.Slice(out, func(i, j int) bool { return out[i].ID > out[j].ID })
	return out, err
}

// RevokeInvitation ends a pending invitation of the workspace; its link stops working. Another
// workspace's id is ErrNotFound; one no longer pending is ErrConflict.
func (s *Store) RevokeInvitation(workspaceID, id string) error {
	return s.update(func(tx *wtx) error {
		var rec invitationRecord
		ok := false
		if _, valid := ParseID(id); valid {
			var err error
			if ok, err = getJSON(tx.Bucket(bInvitations), wsKeyChecked(workspaceID, id), &rec); err != nil {
				return err
			}
		}
		if !ok {
			return tx.refuse(errorf(ErrNotFound, "invitation not found"))
		}
		if st := rec.current(s.Now()).Status; st != InvitationPending {
			return tx.refuse(errorf(ErrConflict, "the invitation is %s already", st))
		}
		rec.Status, rec.UpdatedAt = InvitationRevoked, s.Now()
		return putJSON(tx.Bucket(bInvitations), wsKey(workspaceID, id), rec)
	})
}

// InvitationByToken finds the invitation of a link, with its status as of now; an unknown
// token is ErrNotFound.
func (s *Store) InvitationByToken(plain string) (InvitationEntry, error) {
	var e InvitationEntry
	err := s.view(func(tx *kv.Tx) error {
		rec, _, err := invitationByToken(tx, plain)
		e = rec.current(s.Now())
		return err
	})
	return e, err
}

func invitationByToken(tx *kv.Tx, plain string) (invitationRecord, []byte, error) {
	var rec invitationRecord
	b := tx.Bucket(bInvitations)
	key := b.Get(invTokenKey(HashToken(plain)))
	if key == nil || plain == "" {
		return rec, nil, errorf(ErrNotFound, "invitation not found")
	}
	key = bytes.Clone(key)
	ok, err := getJSON(b, key, &rec)
	if err == nil && !ok {
		err = errorf(ErrNotFound, "invitation not found")
	}
	return rec, key, err
}

// AcceptInvitation makes userID a member of the invitation's workspace with its role, once:
// an expired, revoked or used link is ErrConflict (saying which). A user who is already a
// member keeps the role they have.
func (s *Store) AcceptInvitation(plain, userID string) (Membership, error) {
	var m Membership
	err := s.update(func(tx *wtx) error {
		var err error
		m, err = s.acceptInvitation(tx, plain, userID)
		return err
	})
	return m, err
}

// AcceptInvitationNewUser creates the invited person's account (the invitation's email, with
// name and password) and accepts the invitation for it, in one transaction.
func (s *Store) AcceptInvitationNewUser(plain, name, password string) (User, Membership, error) {
	inv, err := s.InvitationByToken(plain)
	if err != nil {
		return User{}, Membership{}, err
	}
	if password == "" {
		password = "x" // too short: refused below with the same message as any bad password
	}
	u, err := newUserRecord(s, NewUser{Email: inv.Email, Name: name, Password: password})
	if err != nil {
		return User{}, Membership{}, err
	}
	var m Membership
	err = s.update(func(tx *wtx) error {
		if err := checkInvitation(tx.Tx, s.Now(), plain); err != nil {
			return tx.refuse(err)
		}
		if emailTaken(tx.Tx, u.Email) {
			return tx.refuse(errorf(ErrConflict, "a user with email %s already exists: sign in to accept", u.Email))
		}
		if err := putNewUser(tx.Tx, u); err != nil {
			return err
		}
		var err error
		m, err = s.acceptInvitation(tx, plain, u.ID)
		return err
	})
	return u, m, err
}

func checkInvitation(tx *kv.Tx, now time.Time, plain string) error {
	rec, _, err := invitationByToken(tx, plain)
	if err != nil {
		return err
	}
	switch rec.current(now).Status {
	case InvitationPending:
		return nil
	case InvitationAccepted:
		return errorf(ErrConflict, "this invitation link has been used already")
	case InvitationRevoked:
		return errorf(ErrConflict, "this invitation was revoked")
	default:
		return errorf(ErrConflict, "this invitation link has expired")
	}
}

func (s *Store) acceptInvitation(tx *wtx, plain, userID string) (Membership, error) {
	var m Membership
	if err := checkInvitation(tx.Tx, s.Now(), plain); err != nil {
		return m, tx.refuse(err)
	}
	rec, key, err := invitationByToken(tx.Tx, plain)
	if err != nil {
		return m, err
	}
	if _, err := getWorkspace(tx.Tx, rec.WorkspaceID); err != nil {
		return m, tx.refuse(err)
	}
	if _, err := getUser(tx.Tx, userID); err != nil {
		return m, tx.refuse(err)
	}
	b := tx.Bucket(bMemberships)
	ok, err := getJSON(b, wsKey(rec.WorkspaceID, userID), &m)
	if err != nil {
		return m, err
	}
	if !ok {
		m = Membership{ID: s.NewID(), WorkspaceID: rec.WorkspaceID, UserID: userID, Role: rec.Role, CreatedAt: s.Now()}
		if err := putJSON(b, wsKey(rec.WorkspaceID, userID), m); err != nil {
			return m, err
		}
		if err := tx.Bucket(bUserWS).Put(wsKey(userID, rec.WorkspaceID), []byte(m.ID)); err != nil {
			return m, err
		}
	}
	rec.Status, rec.UserMembershipID, rec.UpdatedAt = InvitationAccepted, m.ID, s.Now()
	return m, putJSON(tx.Bucket(bInvitations), key, rec)
}
