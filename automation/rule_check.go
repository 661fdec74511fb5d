package automation

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Checking a rule against the workspace it is for: the members, teams, groups, properties and
// numbers it names exist, and its reply's merge tags are known.

// Refs answers, for Check, what the workspace holds: its members, teams, groups, custom
// properties (with their type) and numbers, and whether a reply text's merge tags are known.
type Refs interface {
	Member(userID string) bool
	Team(teamID string) bool
	Group(groupID string) bool
	Number(idOrPhone string) bool
	// PropertyValue checks a value for the custom property name: "" when it fits, else why
	// not (an unknown property included).
	PropertyValue(name string, value json.RawMessage) string
	// Property reports whether name is one of the workspace's custom properties.
	Property(name string) bool
	// ReplyText checks a reply's merge tags ({{nextOpen}} included): "" when they are known.
	ReplyText(text string) string
}

// Check checks the rule's references against the workspace; the problems name their fields.
func (r *Rule) Check(refs Refs) Problems {
	var ps Problems
	for i, c := range r.Conditions {
		at := fmt.Sprintf("conditions[%d].value", i)
		v := ValueString(c.Value)
		switch conditionField(c.Field) {
		case FieldNumber:
			if !refs.Number(v) {
				ps.add(at, "%s is not a number of this workspace", v)
			}
		case FieldProperty:
			if name := strings.TrimPrefix(c.Field, FieldProperty); !refs.Property(name) {
				ps.add(fmt.Sprintf("conditions[%d].field", i), "%s is not a custom property of this workspace", name)
			}
		case FieldGroup:
			if !refs.Group(v) {
				ps.add(at, "%s is not a group of this workspace", v)
			}
		case FieldAssignee:
			if c.Op == OpIs && !refs.Member(v) {
				ps.add(at, "%s is not a member of this workspace", v)
			}
		}
	}
	for i, a := range r.Actions {
		at := fmt.Sprintf("actions[%d].", i)
		switch a.Type {
		case ActAssign, ActMention:
			if !refs.Member(a.UserID) {
				ps.add(at+"userId", "%s is not a member of this workspace", a.UserID)
			}
		case ActAssignTeam:
			if !refs.Team(a.TeamID) {
				ps.add(at+"teamId", "%s is not a team of this workspace", a.TeamID)
			}
		case ActAddToGroup:
			if !refs.Group(a.GroupID) {
				ps.add(at+"groupId", "%s is not a group of this workspace", a.GroupID)
			}
		case ActSetProperty:
			if msg := refs.PropertyValue(a.Name, a.Value); msg != "" {
				ps.add(at+"value", "%s", msg)
			}
		case ActReply:
			if msg := refs.ReplyText(a.Text); msg != "" {
				ps.add(at+"text", "%s", msg)
			}
		}
	}
	sortProblems(ps)
	return ps
}
