package store

import (
	"fmt"
	"slices"
	"strings"

	"switchboard/store/internal/index"
	"switchboard/store/kv"
)

// BroadcastTargets are the sources of a broadcast's recipients: the union of Recipients, the
// members of GroupIDs and the contacts of ConversationIDs, minus the members of ExcludeGroupIDs
// and the contacts of ExcludeConversationIDs.
type BroadcastTargets struct {
	Recipients             []string `json:"recipients,omitempty"`
	GroupIDs               []string `json:"groupIds,omitempty"`
	ConversationIDs        []string `json:"conversationIds,omitempty"`
	ExcludeGroupIDs        []string `json:"excludeGroupIds,omitempty"`
	ExcludeConversationIDs []string `json:"excludeConversationIds,omitempty"`
}

// Targets are the input's recipient sources.
func (in *BroadcastInput) Targets() BroadcastTargets {
	return BroadcastTargets{Recipients: in.Recipients, GroupIDs: in.GroupIDs, ConversationIDs: in.ConversationIDs,
		ExcludeGroupIDs: in.ExcludeGroupIDs, ExcludeConversationIDs: in.ExcludeConversationIDs}
}

// BroadcastTargetsOf returns what a broadcast was aimed at.
func (s *Store) BroadcastTargetsOf(workspaceID, id string) (BroadcastTargets, error) {
	var t BroadcastTargets
	err := s.view(func(tx *kv.Tx) error {
		_, err := getJSON(tx.Bucket(bBroadcastTargets), wsKeyChecked(workspaceID, id), &t)
		return err
	})
	return t, err
}

// checkTargets checks that every id of t is one of the workspace's groups or conversations; the
// failures name the field, as every check of a request's workspace data does.
func checkTargets(tx *kv.Tx, workspaceID string, t *BroadcastTargets) (ValidationError, error) {
	var errs ValidationError
	for _, f := range []struct {
		name   string
		ids    []string
		bucket []byte
		what   string
	}{
		{"conversationIds", t.ConversationIDs, bConversations, "conversation"},
		{"excludeConversationIds", t.ExcludeConversationIDs, bConversations, "conversation"},
		{"excludeGroupIds", t.ExcludeGroupIDs, bGroups, "group"},
		{"groupIds", t.GroupIDs, bGroups, "group"},
	} {
		for i, id := range f.ids {
			if tx.Bucket(f.bucket).Get(wsKeyChecked(workspaceID, id)) == nil {
				errs = append(errs, FieldError{f.name, fmt.Sprintf("%s[%d] %q is not a %s of this workspace", f.name, i, id, f.what)})
				break
			}
		}
	}
	return errs, nil
}

// resolveRecipients is the union of t's sources minus its exclusions, de-duplicated.
func resolveRecipients(tx *kv.Tx, workspaceID string, t *BroadcastTargets) ([]string, error) {
	set := map[string]bool{}
	for _, r := range t.Recipients {
		set[r] = true
	}
	add := func(phones []string, include bool) {
		for _, p := range phones {
			if include {
				set[p] = true
			} else {
				delete(set, p)
			}
		}
	}
	recs := index.WsBucket(tx, bContacts, idKey(workspaceID))
	groupPhones := func(ids []string) ([]string, error) {
		var out []string
		for _, g := range ids {
			for _, cid := range groupMembers(tx, workspaceID, g) {
				// Only the phone (Contact.Phone) is needed: read from the record without
				// building the contact, as search does.
				u, ok := ParseID(cid)
				if !ok || recs == nil {
					continue
				}
				v := recs.Get(u[:])
				if v == nil {
					continue // deleted meanwhile
				}
				_, _, _, _, p, err := recordText(v)
				if err != nil {
					continue // unreadable, as getContact would have failed
				}
				if p != "" {
					out = append(out, p)
				}
			}
		}
		return out, nil
	}
	convPhones := func(ids []string) ([]string, error) {
		var out []string
		for _, id := range ids {
			var c Conversation
			ok, err := getJSON(tx.Bucket(bConversations), wsKeyChecked(workspaceID, id), &c)
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, c.Addresses...)
			}
		}
		return out, nil
	}
	for _, step := range []struct {
		ids     []string
		phones  func([]string) ([]string, error)
		include bool
	}{
		{t.GroupIDs, groupPhones, true},
		{t.ConversationIDs, convPhones, true},
		{t.ExcludeGroupIDs, groupPhones, false},
		{t.ExcludeConversationIDs, convPhones, false},
	} {
		phones, err := step.phones(step.ids)
		if err != nil {
			return nil, err
		}
		add(phones, step.include)
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	slices.Sort(out)
	return out, nil
}

func sortFieldErrors(errs ValidationError) {
	slices.SortStableFunc(errs, func(a, b FieldError) int { return strings.Compare(a.Field, b.Field) })
}

// checkText checks a text's merge tags against the workspace's custom properties: "" or the
// message of a validation error on `text`.
func checkText(tx *kv.Tx, workspaceID, text string) (string, error) {
	if !strings.Contains(text, "{{") {
		return "", nil
	}
	types, err := propertyTypes(tx, workspaceID)
	if err != nil {
		return "", err
	}
	names := make([]string, 0, len(types))
	for n := range types {
		names = append(names, n)
	}
	return CheckTemplate(text, names), nil
}
