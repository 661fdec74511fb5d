package store

import (
	"fmt"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// CreateWorkspace adds a workspace to the installation's tenant.
func (s *Store) CreateWorkspace(name string) (Workspace, error) {
	return s.CreateWorkspaceFor(name, "")
}

// CreateWorkspaceFor adds a workspace and, when adminID is set, makes that user its admin — in
// one transaction, so a workspace never exists without the person who made it (the admin UI).
func (s *Store) CreateWorkspaceFor(name, adminID string) (Workspace, error) {
	name = strings.TrimSpace(name)
	if name == "" || runeLen(name) > 255 {
		return Workspace{}, ValidationError{{"name", "is required, at most 255 characters"}}
	}
	w := Workspace{ID: s.NewID(), TenantID: s.tenantID, Name: name, CreatedAt: s.Now(), UpdatedAt: s.Now()}
	err := s.db.Update(func(tx *bolt.Tx) error {
		if err := putJSON(tx.Bucket(bWorkspaces), idKey(w.ID), w); err != nil {
			return err
		}
		if adminID == "" {
			return nil
		}
		_, err := s.addMembership(tx, w.ID, adminID, "admin")
		return err
	})
	return w, err
}

// Workspace returns a workspace by id.
func (s *Store) Workspace(id string) (Workspace, error) {
	var w Workspace
	err := s.db.View(func(tx *bolt.Tx) error {
		var err error
		w, err = getWorkspace(tx, id)
		return err
	})
	return w, err
}

func getWorkspace(tx *bolt.Tx, id string) (Workspace, error) {
	var w Workspace
	if _, ok := ParseID(id); !ok {
		return w, errorf(ErrNotFound, "workspace not found")
	}
	ok, err := getJSON(tx.Bucket(bWorkspaces), idKey(id), &w)
	if err == nil && !ok {
		err = errorf(ErrNotFound, "workspace not found")
	}
	return w, err
}

// Workspaces lists every workspace, oldest first.
func (s *Store) Workspaces() ([]Workspace, error) {
	var out []Workspace
	err := s.db.View(func(tx *bolt.Tx) error {
		var err error
		out, err = s.workspacesIn(tx)
		return err
	})
	return out, err
}

// AddMember makes userID a member of workspaceID; adding twice returns the existing membership.
func (s *Store) AddMember(workspaceID, userID, role string) (Membership, error) {
	if role == "" {
		role = "member"
	}
	var m Membership
	err := s.db.Update(func(tx *bolt.Tx) error {
		var err error
		m, err = s.addMembership(tx, workspaceID, userID, role)
		return err
	})
	return m, err
}

func (s *Store) addMembership(tx *bolt.Tx, workspaceID, userID, role string) (Membership, error) {
	var m Membership
	if _, err := getWorkspace(tx, workspaceID); err != nil {
		return m, err
	}
	if _, err := getUser(tx, userID); err != nil {
		return m, err
	}
	b := tx.Bucket(bMemberships)
	if ok, err := getJSON(b, wsKey(workspaceID, userID), &m); ok || err != nil {
		return m, err
	}
	m = Membership{ID: s.NewID(), WorkspaceID: workspaceID, UserID: userID, Role: role, CreatedAt: s.Now()}
	if err := putJSON(b, wsKey(workspaceID, userID), m); err != nil {
		return m, err
	}
	return m, tx.Bucket(bUserWS).Put(wsKey(userID, workspaceID), []byte(m.ID))
}

// RemoveMember ends a membership: the user's next request to the workspace is refused, and the
// webhook subscriptions the user made in it are deleted with their pending deliveries cancelled,
// in the same transaction (DESIGN §6). An unknown workspace, user or membership is ErrNotFound.
func (s *Store) RemoveMember(workspaceID, userID string) error {
	return s.update(func(tx *bolt.Tx, fx *effects) error {
		if _, err := getWorkspace(tx, workspaceID); err != nil {
			return fx.refuse(err)
		}
		if _, err := getUser(tx, userID); err != nil {
			return fx.refuse(err)
		}
		b := tx.Bucket(bMemberships)
		if b.Get(wsKey(workspaceID, userID)) == nil {
			return fx.refuse(errorf(ErrNotFound, "membership not found"))
		}
		if err := b.Delete(wsKey(workspaceID, userID)); err != nil {
			return err
		}
		if err := tx.Bucket(bUserWS).Delete(wsKey(userID, workspaceID)); err != nil {
			return err
		}
		fx.wakeLive(workspaceID) // the user's open streams end
		_, err := s.endSubscriptions(tx, ownerPrefix(ownerMember, workspaceID, userID),
			"the user who made the subscription is no longer a member of the workspace")
		return err
	})
}

// Members lists the memberships of a workspace.
func (s *Store) Members(workspaceID string) ([]Membership, error) {
	var out []Membership
	err := s.db.View(func(tx *bolt.Tx) error {
		if _, ok := ParseID(workspaceID); !ok {
			return nil
		}
		return forEachPrefix(tx.Bucket(bMemberships), idKey(workspaceID), func(_, v []byte) error {
			var m Membership
			if err := jsonUnmarshal(v, &m); err != nil {
				return err
			}
			out = append(out, m)
			return nil
		})
	})
	return out, err
}

// Authorize checks, in this order, that the workspace exists (ErrNotFound, "workspace not
// found") and that userID is a member of it (ErrForbidden).
func (s *Store) Authorize(workspaceID, userID string) error {
	return s.db.View(func(tx *bolt.Tx) error { return authorize(tx, workspaceID, userID) })
}

func authorize(tx *bolt.Tx, workspaceID, userID string) error {
	if _, ok := ParseID(workspaceID); !ok || tx.Bucket(bWorkspaces).Get(idKey(workspaceID)) == nil {
		return errorf(ErrNotFound, "workspace not found")
	}
	if _, ok := ParseID(userID); !ok || tx.Bucket(bMemberships).Get(wsKey(workspaceID, userID)) == nil {
		return errorf(ErrForbidden, "you are not a member of this workspace")
	}
	return nil
}

func isMember(tx *bolt.Tx, workspaceID, userID string) bool {
	_, ok := ParseID(userID)
	return ok && tx.Bucket(bMemberships).Get(wsKey(workspaceID, userID)) != nil
}

// UserWorkspaces lists the workspaces userID is a member of, oldest first.
func (s *Store) UserWorkspaces(userID string) ([]Workspace, error) {
	var out []Workspace
	err := s.db.View(func(tx *bolt.Tx) error {
		if _, ok := ParseID(userID); !ok {
			return nil
		}
		return forEachPrefix(tx.Bucket(bUserWS), idKey(userID), func(k, _ []byte) error {
			w, err := getWorkspace(tx, idFromKey(k))
			if err != nil {
				return err
			}
			out = append(out, w)
			return nil
		})
	})
	return out, err
}

// WorkspaceSettings changes a workspace's settings; nil fields stay as they are. A reply set to
// "" sends no reply (for carriers that answer keywords themselves).
type WorkspaceSettings struct {
	Name          *string
	StopReply     *string
	StartReply    *string
	HelpReply     *string
	VoiceGreeting *string
	TimeZone      *string // IANA name, "" for UTC
	QuietHours    *string // "HH:MM-HH:MM" or "off"
	// RetentionDays: messages older than this many days are deleted by the sweeper; 0 keeps
	// them.
	RetentionDays *int
}

// maxReply bounds keyword replies and the greeting, like any text (code points).
const maxReply = 1200

// UpdateWorkspace applies settings to a workspace.
func (s *Store) UpdateWorkspace(id string, in WorkspaceSettings) (Workspace, error) {
	var errs ValidationError
	if in.Name != nil {
		if n := strings.TrimSpace(*in.Name); n == "" || runeLen(n) > 255 {
			errs = append(errs, FieldError{"name", "is required, at most 255 characters"})
		}
	}
	for _, f := range []struct {
		name string
		v    *string
	}{{"helpReply", in.HelpReply}, {"startReply", in.StartReply}, {"stopReply", in.StopReply}, {"voiceGreeting", in.VoiceGreeting}} {
		if f.v != nil && runeLen(*f.v) > maxReply {
			errs = append(errs, FieldError{f.name, "must be at most 1200 characters"})
		}
	}
	if in.RetentionDays != nil && (*in.RetentionDays < 0 || *in.RetentionDays > MaxRetentionDays) {
		errs = append(errs, FieldError{"retentionDays", fmt.Sprintf("must be a whole number of days from 0 (keep messages) to %d", MaxRetentionDays)})
	}
	if in.TimeZone != nil && *in.TimeZone != "" && !ValidTimeZone(*in.TimeZone) {
		errs = append(errs, FieldError{"timeZone", "must be an IANA time zone such as America/New_York"})
	}
	var quiet QuietHours
	if in.QuietHours != nil {
		var err error
		if quiet, err = ParseQuietHours(*in.QuietHours); err != nil {
			errs = append(errs, FieldError{"quietHours", err.Error()})
		}
	}
	if errs != nil {
		sortFieldErrors(errs)
		return Workspace{}, errs
	}
	var w Workspace
	err := s.db.Update(func(tx *bolt.Tx) error {
		var err error
		if w, err = getWorkspace(tx, id); err != nil {
			return err
		}
		if in.Name != nil {
			w.Name = strings.TrimSpace(*in.Name)
		}
		trimmed := func(p *string) *string {
			if p == nil {
				return nil
			}
			v := strings.TrimSpace(*p)
			return &v
		}
		if in.StopReply != nil {
			w.StopReply = trimmed(in.StopReply)
		}
		if in.StartReply != nil {
			w.StartReply = trimmed(in.StartReply)
		}
		if in.HelpReply != nil {
			w.HelpReply = trimmed(in.HelpReply)
		}
		if in.VoiceGreeting != nil {
			w.VoiceGreeting = trimmed(in.VoiceGreeting)
		}
		if in.TimeZone != nil {
			w.TimeZone = *in.TimeZone
		}
		if in.RetentionDays != nil {
			w.RetentionDays = *in.RetentionDays
		}
		if in.QuietHours != nil {
			w.QuietHours = ""
			if !quiet.Off() {
				w.QuietHours = quiet.String()
			}
		}
		w.UpdatedAt = s.Now()
		return putJSON(tx.Bucket(bWorkspaces), idKey(w.ID), w)
	})
	return w, err
}

// MemberRole is userID's role in workspaceID (admin or member); ErrForbidden when not a member.
func (s *Store) MemberRole(workspaceID, userID string) (string, error) {
	var m Membership
	err := s.db.View(func(tx *bolt.Tx) error {
		ok, err := getJSON(tx.Bucket(bMemberships), wsKeyChecked(workspaceID, userID), &m)
		if err == nil && !ok {
			err = errorf(ErrForbidden, "you are not a member of this workspace")
		}
		return err
	})
	return m.Role, err
}
