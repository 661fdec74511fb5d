package automation

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Triggers: the events a rule waits for.
const (
	TriggerMessageReceived     = "message.received"
	TriggerConversationCreated = "conversation.created"
	TriggerUnanswered          = "conversation.unanswered"
	TriggerLabelAdded          = "label.added"
	TriggerBroadcastReply      = "broadcast.reply"
)

// Triggers lists the triggers in the order the rules page offers them.
var Triggers = []string{TriggerMessageReceived, TriggerConversationCreated, TriggerUnanswered, TriggerLabelAdded, TriggerBroadcastReply}

// Condition fields (besides "property:NAME") and operators.
const (
	FieldNumber       = "number"
	FieldText         = "text"
	FieldProperty     = "property:" // + the property's name
	FieldGroup        = "group"
	FieldLabel        = "label"
	FieldHours        = "hours"
	FieldFirstMessage = "firstMessage"
	FieldAssignee     = "assignee"

	OpIs       = "is"
	OpContains = "contains"
	OpEquals   = "equals"
	OpSet      = "set"
	OpIn       = "in"
	OpOpen     = "open"
	OpClosed   = "closed"
	OpNone     = "none"
)

// Action types.
const (
	ActAssign      = "assign"
	ActAssignTeam  = "assignTeam"
	ActUnassign    = "unassign"
	ActAddLabel    = "addLabel"
	ActRemoveLabel = "removeLabel"
	ActClose       = "close"
	ActSnooze      = "snooze"
	ActReply       = "reply"
	ActNote        = "note"
	ActMention     = "mention"
	ActAddToGroup  = "addToGroup"
	ActSetProperty = "setProperty"
	ActFlagOptOut  = "flagOptOut"
)

// ActionTypes lists the action types in the order the rules page offers them.
var ActionTypes = []string{ActAssign, ActAssignTeam, ActUnassign, ActAddLabel, ActRemoveLabel, ActClose, ActSnooze,
	ActReply, ActNote, ActMention, ActAddToGroup, ActSetProperty, ActFlagOptOut}

// actionFields is what each action type carries beside its type, in the order it is written.
var actionFields = map[string][]string{
	ActAssign: {"userId"}, ActAssignTeam: {"teamId"}, ActUnassign: nil, ActAddLabel: {"label"},
	ActRemoveLabel: {"label"}, ActClose: nil, ActSnooze: {"minutes"}, ActReply: {"text"}, ActNote: {"text"},
	ActMention: {"userId"}, ActAddToGroup: {"groupId"}, ActSetProperty: {"name", "value"}, ActFlagOptOut: nil,
}

// Limits of a rule document.
const (
	MaxRules          = 100 // enabled or not, per workspace
	MaxConditions     = 20
	MaxActions        = 20
	MaxNameLen        = 100
	MaxUnanswered     = 43200 // minutes: 30 days
	MaxSnooze         = 525600
	MaxReplyLen       = 1200 // like any text; its merge tags filled in, at most MaxFilledReply
	MaxFilledReply    = 1600
	MaxNoteLen        = 4000
	MaxLabelLen       = 64
	MaxConditionValue = 255
)

// Rule is one rule as its document says: when (trigger), if (conditions, all or any), then
// (actions), and whether later rules still run. ID is the store's and not part of the document.
type Rule struct {
	ID                string
	Name              string
	Enabled           bool
	Trigger           string
	UnansweredMinutes int
	BusinessHoursOnly bool
	Match             string // all or any
	Conditions        []Condition
	Actions           []Action
	Stop              bool
}

// Condition is one test of a rule: Field Op Value. Value is the JSON scalar the document
// gave (a string, number or boolean), nil when the operator takes none.
type Condition struct {
	Field string
	Op    string
	Value json.RawMessage
}

// Action is one thing a rule does; only the fields of its Type are used.
type Action struct {
	Type    string
	UserID  string
	TeamID  string
	Label   string
	Minutes int
	Text    string
	GroupID string
	Name    string          // setProperty: the property
	Value   json.RawMessage // setProperty: the JSON value
}

// Problem is one thing wrong with a document: the field, named like a JSON path
// ("actions[1].userId"), and what is wrong with it.
type Problem struct {
	Field   string
	Message string
}

// Problems is every problem of a document, sorted by field.
type Problems []Problem

func (ps Problems) Error() string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.Field + ": " + p.Message)
	}
	return b.String()
}

func (ps *Problems) add(field, format string, args ...any) {
	*ps = append(*ps, Problem{field, fmt.Sprintf(format, args...)})
}
