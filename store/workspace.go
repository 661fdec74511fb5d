package store

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"switchboard/internal/phone"

	"switchboard/store/kv"
)

// Workspace owns numbers, contacts, conversations and everything under them.
type Workspace struct {
	ID        string    `json:"id"`
	TenantID  string    `json:"tenantId"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	// RetentionDays is how long messages are kept; 0 keeps them until deleted.
	RetentionDays int `json:"retentionDays,omitempty"`
	// Keyword reply texts and the voice greeting: nil means the default (WorkspaceReply); an
	// empty string sends no reply (for carriers that answer keywords themselves).
	StopReply     *string `json:"stopReply,omitempty"`
	StartReply    *string `json:"startReply,omitempty"`
	HelpReply     *string `json:"helpReply,omitempty"`
	VoiceGreeting *string `json:"voiceGreeting,omitempty"`
	// TimeZone (IANA) is the zone of contacts whose own cannot be known; "" is UTC.
	TimeZone string `json:"timeZone,omitempty"`
	// QuietHours ("21:00-08:00", "" when off): broadcast copies due inside them, in the
	// contact's time zone, wait until they end.
	QuietHours string `json:"quietHours,omitempty"`
	// StateHours turns on US state calling hours: broadcast copies to +1 numbers wait outside
	// the hours the recipient's state allows.
	StateHours bool `json:"stateHours,omitempty"`
	// Country (ISO 3166-1 alpha-2, "" for US) is how the admin UI reads numbers typed in
	// national format and which numbers it shows in national format.
	Country string `json:"country,omitempty"`
	// Assist lets the workspace's members ask the installation's model for drafts and
	// summaries: only then does any of its conversations leave the server (off by default).
	Assist bool `json:"assist,omitempty"`
}

// Region is the workspace's country, US when none is set.
func (w *Workspace) Region() string { return phone.Country(w.Country) }

// Location is the workspace's time zone (UTC when unset or unknown).
func (w *Workspace) Location() *time.Location {
	if w.TimeZone != "" {
		if loc, ok := loadLocation(w.TimeZone); ok {
			return loc
		}
	}
	return time.UTC
}

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
	err := s.updateNow(func(tx *wtx) error {
		if err := putJSON(tx.Bucket(bWorkspaces), idKey(w.ID), w); err != nil {
			return err
		}
		if adminID == "" {
			return nil
		}
		_, err := s.addMembership(tx.Tx, w.ID, adminID, "admin")
		return err
	})
	return w, err
}

// Workspace returns a workspace by id.
func (s *Store) Workspace(id string) (Workspace, error) {
	var w Workspace
	err := s.view(func(tx *kv.Tx) error {
		var err error
		w, err = getWorkspace(tx, id)
		return err
	})
	return w, err
}

func getWorkspace(tx *kv.Tx, id string) (Workspace, error) {
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
	err := s.view(func(tx *kv.Tx) error {
		var err error
		out, err = s.workspacesIn(tx)
		return err
	})
	return out, err
}

// UserWorkspaces lists the workspaces userID is a member of, oldest first.
func (s *Store) UserWorkspaces(userID string) ([]Workspace, error) {
	var out []Workspace
	err := s.view(func(tx *kv.Tx) error {
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
	StateHours    *bool   // US state calling hours on or off
	Country       *string // ISO 3166-1 alpha-2, upper or lower case
	// RetentionDays: messages older than this many days are deleted by the sweeper; 0 keeps
	// them.
	RetentionDays *int
	// Assist turns the installation's model on or off for the workspace.
	Assist *bool
}

// maxReply bounds keyword replies and the greeting, like any text (code points).
const maxReply = 1200

// Check validates the settings as UpdateWorkspace does, writing nothing: the fields that fail,
// sorted by name, or nil.
func (in *WorkspaceSettings) Check() ValidationError {
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
	if in.Country != nil && !phone.ValidCountry(strings.ToUpper(strings.TrimSpace(*in.Country))) {
		errs = append(errs, FieldError{"country", "must be a two-letter country code (ISO 3166-1) such as US, GB or DE"})
	}
	if in.QuietHours != nil {
		if _, err := ParseQuietHours(*in.QuietHours); err != nil {
			errs = append(errs, FieldError{"quietHours", err.Error()})
		}
	}
	if errs != nil {
		sortFieldErrors(errs)
	}
	return errs
}

// UpdateWorkspace applies settings to a workspace.
func (s *Store) UpdateWorkspace(id string, in WorkspaceSettings) (Workspace, error) {
	if errs := in.Check(); errs != nil {
		return Workspace{}, errs
	}
	var country string
	if in.Country != nil {
		country = strings.ToUpper(strings.TrimSpace(*in.Country))
	}
	var quiet QuietHours
	if in.QuietHours != nil {
		quiet, _ = ParseQuietHours(*in.QuietHours) // checked
	}
	var w Workspace
	err := s.updateNow(func(tx *wtx) error {
		var err error
		if w, err = getWorkspace(tx.Tx, id); err != nil {
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
		zone := w.Location().String()
		if in.TimeZone != nil {
			w.TimeZone = *in.TimeZone
		}
		if in.RetentionDays != nil {
			w.RetentionDays = *in.RetentionDays
		}
		if in.Country != nil {
			w.Country = country
		}
		if in.StateHours != nil {
			w.StateHours = *in.StateHours
		}
		if in.Assist != nil {
			w.Assist = *in.Assist
		}
		if in.QuietHours != nil {
			w.QuietHours = ""
			if !quiet.Off() {
				w.QuietHours = quiet.String()
			}
		}
		w.UpdatedAt = s.Now()
		if err := putJSON(tx.Bucket(bWorkspaces), idKey(w.ID), w); err != nil {
			return err
		}
		if w.Location().String() != zone {
			// The reports' days are the zone's days: its rollups are built again.
			return tx.requestReportBuild(w.ID)
		}
		return nil
	})
	return w, err
}

// SetWorkspaceArchived archives or restores a workspace. An archived workspace keeps its data;
// the admin UI lists it apart and leaves it out of its members' workspace choice.
func (s *Store) SetWorkspaceArchived(id string, archived bool) error {
	return s.update(func(tx *wtx) error {
		if _, err := getWorkspace(tx.Tx, id); err != nil {
			return tx.refuse(err)
		}
		meta := tx.Bucket(bMeta)
		if !archived {
			return meta.Delete(archivedKey(id))
		}
		b, err := s.Now().MarshalText()
		if err != nil {
			return err
		}
		return meta.Put(archivedKey(id), b)
	})
}

// ArchivedWorkspaces is the set of archived workspace ids.
func (s *Store) ArchivedWorkspaces() (map[string]bool, error) {
	out := map[string]bool{}
	err := s.view(func(tx *kv.Tx) error {
		ws, err := s.workspacesIn(tx)
		for _, w := range ws {
			if tx.Bucket(bMeta).Get(archivedKey(w.ID)) != nil {
				out[w.ID] = true
			}
		}
		return err
	})
	return out, err
}

func (s *Store) workspacesIn(tx *kv.Tx) ([]Workspace, error) {
	var out []Workspace
	err := tx.Bucket(bWorkspaces).ForEach(func(_, v []byte) error {
		var w Workspace
		if err := jsonUnmarshal(v, &w); err != nil {
			return err
		}
		out = append(out, w)
		return nil
	})
	return out, err
}

// archivedKey is the meta entry that marks a workspace archived (its value: when).
func archivedKey(id string) []byte { return append(slices.Clip(metaArchived), idKey(id)...) }
