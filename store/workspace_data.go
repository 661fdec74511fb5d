package store

import "switchboard/store/kv"

import ()

// WorkspaceData holds the fields of a request that refer to a workspace's data; they are
// checked after the request's own shape and before the write, so a request whose shape is
// wrong is refused for that first. The zero value refers to nothing. A field that failed its own
// rules is left out by the caller, so that it is reported once.
type WorkspaceData struct {
	From       string         // must be an active number of the workspace; "" is not checked
	Mentions   []string       // must be user ids of members of the workspace
	Properties map[string]any // keys must be custom properties, values must fit their types
	// NullRemoves allows a nil property value (create-or-update removes that key); otherwise
	// a nil value fails.
	NullRemoves bool
	Text        string            // its merge tags must name built-in fields or custom properties
	Targets     *BroadcastTargets // its ids must be the workspace's groups and conversations
	// NumberID and MemberID narrow a report: a number of the workspace, a member of it.
	NumberID, MemberID string
}

// Empty reports whether d refers to nothing in the workspace.
func (d WorkspaceData) Empty() bool {
	return d.From == "" && len(d.Mentions) == 0 && len(d.Properties) == 0 && d.Text == "" && d.Targets == nil &&
		d.NumberID == "" && d.MemberID == ""
}

// CheckWorkspaceData checks, in one read transaction and writing nothing, that the workspace
// exists (ErrNotFound, "workspace not found"), that userID is a member (ErrForbidden), then
// every field of d against the workspace's data: their failures are one ValidationError, with
// the same fields and messages the writes (SendMessage, CreateComment, CreateContact, …)
// report. It lets a request that failed its own rules list the workspace-data failures in the
// same 400.
func (s *Store) CheckWorkspaceData(userID, workspaceID string, d WorkspaceData) error {
	return s.view(func(tx *kv.Tx) error {
		if err := authorize(tx, workspaceID, userID); err != nil {
			return err
		}
		var errs ValidationError
		if d.From != "" {
			ok, err := s.isActiveNumber(tx, workspaceID, d.From)
			if err != nil {
				return err
			}
			if !ok {
				errs = append(errs, fromNumberError(d.From)...)
			}
		}
		if fe, ok := checkMentions(tx, workspaceID, d.Mentions); !ok {
			errs = append(errs, fe)
		}
		if len(d.Properties) > 0 {
			types, err := propertyTypes(tx, workspaceID)
			if err != nil {
				return err
			}
			errs = append(errs, checkProperties(types, d.Properties, d.NullRemoves)...)
		}
		if msg, err := checkText(tx, workspaceID, d.Text); err != nil {
			return err
		} else if msg != "" {
			errs = append(errs, FieldError{"text", msg})
		}
		if d.Targets != nil {
			te, err := checkTargets(tx, workspaceID, d.Targets)
			if err != nil {
				return err
			}
			errs = append(errs, te...)
		}
		errs = append(errs, checkReportFilter(tx, workspaceID, d.NumberID, d.MemberID)...)
		if errs != nil {
			sortFieldErrors(errs)
			return errs
		}
		return nil
	})
}

// checkMentions reports the first mention that is not a member of the workspace.
func checkMentions(tx *kv.Tx, workspaceID string, mentions []string) (FieldError, bool) {
	for _, u := range mentions {
		if !isMember(tx, workspaceID, u) {
			return FieldError{"mentions", "must be user ids of members of this workspace; " + u + " is not"}, false
		}
	}
	return FieldError{}, true
}
