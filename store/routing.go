package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"switchboard/automation"
	"switchboard/store/kv"
)

// A workspace's routing — business hours, automatic replies, teams, who may use each number,
// the first-response target and the rules — is one record in bRouting, keyed by workspace:
// version(16) | JSON. Every change writes a new version (a fresh ULID, never reused even when
// its transaction rolls back), and the store keeps each workspace's decoded and compiled
// routing in memory beside the version it came from. A transaction that needs the routing
// reads the version (one Get) and uses the compiled copy when it matches, so an inbound text
// pays one lookup, not a decode of a hundred rules; a change anywhere is seen at once.

// Assignment modes of a team.
const (
	AssignOff        = "off"
	AssignRoundRobin = "round-robin"
	AssignLeastBusy  = "least-busy"
)

// DefaultCapacity is how many open conversations a team member holds before auto-assignment
// passes them by, when the team sets none.
const DefaultCapacity = 20

// First-response target counting.
const (
	FirstResponseBusiness = "business" // only business hours count (the default)
	FirstResponseAll      = "all"
)

// AutoReplies are the automatic replies' texts. For the workspace, nil or "" is off; for a
// number, nil takes the workspace's and "" turns it off for that number.
type AutoReplies struct {
	AfterHours *string `json:"afterHours,omitempty"`
	Greeting   *string `json:"greeting,omitempty"`
}

// NumberRouting is what a number sets apart from its workspace.
type NumberRouting struct {
	// Hours override the workspace's business hours for this number (nil: the workspace's).
	Hours     *automation.Hours `json:"hours,omitempty"`
	AutoReply AutoReplies       `json:"autoReply,omitzero"`
	// Teams limit the number: only their members (and the workspace's admins) see its
	// conversations and send from it. Empty: every member.
	Teams []string `json:"teams,omitempty"`
	// DefaultTeam is the team whose auto-assignment takes the number's new conversations;
	// DefaultAssignee, when available, takes them first.
	DefaultTeam     string `json:"defaultTeam,omitempty"`
	DefaultAssignee string `json:"defaultAssignee,omitempty"`
}

// Team is a named set of members with its auto-assignment mode and capacity.
type Team struct {
	ID       string   `json:"id"`
	Name     string   `json:"name"`
	Members  []string `json:"members"`
	Assign   string   `json:"assign"`
	Capacity int      `json:"capacity"`
}

// StoredRule is a rule with its id, as the workspace keeps it.
type StoredRule struct {
	ID   string          `json:"id"`
	Rule automation.Rule `json:"rule"`
}

// Routing is a workspace's routing and automations, as a whole.
type Routing struct {
	Hours     automation.Hours          `json:"hours,omitzero"`
	AutoReply AutoReplies               `json:"autoReply,omitzero"`
	Numbers   map[string]*NumberRouting `json:"numbers,omitempty"` // by number id
	Teams     []Team                    `json:"teams,omitempty"`
	// FirstResponse is the first-response target in minutes (0: none), counted in business
	// hours unless FirstResponseHours is FirstResponseAll.
	FirstResponse      int          `json:"firstResponse,omitempty"`
	FirstResponseHours string       `json:"firstResponseHours,omitempty"`
	Rules              []StoredRule `json:"rules,omitempty"`
}

// Number is the number's settings (a zero one when it sets nothing).
func (r *Routing) Number(id string) NumberRouting {
	if n := r.Numbers[id]; n != nil {
		return *n
	}
	return NumberRouting{}
}

// Team is the team with id, and whether there is one.
func (r *Routing) Team(id string) (Team, bool) {
	for _, t := range r.Teams {
		if t.ID == id {
			return t, true
		}
	}
	return Team{}, false
}

// HoursOf is the business hours of number id: its own, else the workspace's.
func (r *Routing) HoursOf(numberID string) automation.Hours {
	if n := r.Numbers[numberID]; n != nil && n.Hours != nil {
		return *n.Hours
	}
	return r.Hours
}

// AfterHoursOf and GreetingOf are the number's automatic reply texts ("" when off).
func (r *Routing) AfterHoursOf(numberID string) string {
	return replyOf(r.Numbers[numberID], r.AutoReply.AfterHours, func(a AutoReplies) *string { return a.AfterHours })
}

func (r *Routing) GreetingOf(numberID string) string {
	return replyOf(r.Numbers[numberID], r.AutoReply.Greeting, func(a AutoReplies) *string { return a.Greeting })
}

func replyOf(n *NumberRouting, ws *string, pick func(AutoReplies) *string) string {
	if n != nil {
		if p := pick(n.AutoReply); p != nil {
			return *p
		}
	}
	if ws != nil {
		return *ws
	}
	return ""
}

// FirstResponseBusinessOnly reports whether the target counts business hours only.
func (r *Routing) FirstResponseBusinessOnly() bool { return r.FirstResponseHours != FirstResponseAll }

// Rule is the rule with id, and whether there is one.
func (r *Routing) Rule(id string) (automation.Rule, bool) {
	for _, sr := range r.Rules {
		if sr.ID == id {
			return sr.Rule, true
		}
	}
	return automation.Rule{}, false
}

// routing is a workspace's Routing as transactions use it: compiled once per version.
type routing struct {
	version []byte
	Routing
	rules *automation.Set
	// access maps each number limited to teams to the users of those teams.
	access map[string]map[string]bool
	// acts: something happens on an inbound text (an automatic reply, an assignment, a
	// first-response target, a rule); without it an inbound text skips the automations.
	acts bool
}

var noRouting = &routing{rules: automation.Compile(nil)}

// compileRouting builds the compiled form of rt.
func compileRouting(version []byte, rt Routing) *routing {
	r := &routing{version: bytes.Clone(version), Routing: rt, access: map[string]map[string]bool{}}
	rules := make([]automation.Rule, 0, len(rt.Rules))
	for _, sr := range rt.Rules {
		rule := sr.Rule
		rule.ID = sr.ID
		rules = append(rules, rule)
	}
	r.rules = automation.Compile(rules)
	teams := map[string]*Team{}
	for i := range rt.Teams {
		teams[rt.Teams[i].ID] = &rt.Teams[i]
	}
	for id, n := range rt.Numbers {
		if len(n.Teams) > 0 {
			users := map[string]bool{}
			for _, t := range n.Teams {
				if team := teams[t]; team != nil {
					for _, u := range team.Members {
						users[u] = true
					}
				}
			}
			r.access[id] = users
		}
		if n.DefaultTeam != "" || n.DefaultAssignee != "" || (n.AutoReply.AfterHours != nil && *n.AutoReply.AfterHours != "") ||
			(n.AutoReply.Greeting != nil && *n.AutoReply.Greeting != "") {
			r.acts = true
		}
	}
	if len(rt.Rules) > 0 || rt.FirstResponse > 0 || rt.AfterHoursOf("") != "" || rt.GreetingOf("") != "" {
		r.acts = true
	}
	return r
}

// routingOf is workspaceID's routing in tx: the compiled copy of its version.
func (s *Store) routingOf(tx *kv.Tx, workspaceID string) (*routing, error) {
	v := tx.Bucket(bRouting).Get(idKey(workspaceID))
	if len(v) < 16 {
		return noRouting, nil
	}
	if c, ok := s.routes.Load(workspaceID); ok {
		if r := c.(*routing); bytes.Equal(r.version, v[:16]) {
			return r, nil
		}
	}
	var rt Routing
	if err := json.Unmarshal(v[16:], &rt); err != nil {
		return nil, fmt.Errorf("store: decode routing: %w", err)
	}
	r := compileRouting(v[:16], rt)
	s.routes.Store(workspaceID, r)
	return r, nil
}

// readRouting decodes workspaceID's routing afresh: a copy the caller may change.
func readRouting(tx *kv.Tx, workspaceID string) (Routing, error) {
	var rt Routing
	v := tx.Bucket(bRouting).Get(idKey(workspaceID))
	if len(v) < 16 {
		return rt, nil
	}
	if err := json.Unmarshal(v[16:], &rt); err != nil {
		return rt, fmt.Errorf("store: decode routing: %w", err)
	}
	return rt, nil
}

// changeRouting applies change to a fresh copy of the workspace's routing and writes it as a
// new version. change refuses (a ValidationError or *Error) before anything is written.
func (s *Store) changeRouting(workspaceID string, change func(tx *wtx, rt *Routing) error) (Routing, error) {
	var out Routing
	err := s.update(func(tx *wtx) error {
		if _, err := getWorkspace(tx.Tx, workspaceID); err != nil {
			return tx.refuse(err)
		}
		rt, err := readRouting(tx.Tx, workspaceID)
		if err != nil {
			return err
		}
		before := cloneRouting(rt)
		if err := change(tx, &rt); err != nil {
			return err
		}
		if err := s.putRouting(tx.Tx, workspaceID, rt); err != nil {
			return err
		}
		// Members who lost sight of a number lose its unread marks.
		if err := s.forgetHidden(tx.Tx, workspaceID, &before, &rt); err != nil {
			return err
		}
		// The reports' business-hours times were measured with the old hours: built again.
		if tx.refused == nil && !sameHours(&before, &rt) {
			if err := tx.requestReportBuild(workspaceID); err != nil {
				return err
			}
		}
		out = rt
		return nil
	})
	return out, err
}

func (s *Store) putRouting(tx *kv.Tx, workspaceID string, rt Routing) error {
	data, err := json.Marshal(rt)
	if err != nil {
		return fmt.Errorf("store: encode routing: %w", err)
	}
	return tx.Bucket(bRouting).Put(idKey(workspaceID), append(idKey(s.NewID()), data...))
}

func cloneRouting(rt Routing) Routing {
	c := rt
	c.Teams = slices.Clone(rt.Teams)
	c.Numbers = make(map[string]*NumberRouting, len(rt.Numbers))
	for k, v := range rt.Numbers {
		n := *v
		c.Numbers[k] = &n
	}
	return c
}

// RoutingOf returns workspaceID's routing (a copy the caller may keep).
func (s *Store) RoutingOf(workspaceID string) (Routing, error) {
	var rt Routing
	err := s.view(func(tx *kv.Tx) error {
		if _, err := getWorkspace(tx, workspaceID); err != nil {
			return err
		}
		var err error
		rt, err = readRouting(tx, workspaceID)
		return err
	})
	return rt, err
}
