package store

import (
	"fmt"
	"slices"
	"strings"

	"switchboard/store/kv"
)

// Teams are named sets of a workspace's members (kept in its routing). A number limited to
// teams shows its conversations only to their members and the workspace's admins; a team's
// auto-assignment hands the conversations of the numbers it is the default team of to its
// available members.

// Team limits.
const (
	maxTeams    = 100
	maxCapacity = 1000
)

// TeamInput is a team as a form or the CLI gives it. Capacity 0 is DefaultCapacity; Assign ""
// is AssignOff.
type TeamInput struct {
	Name     string
	Members  []string
	Assign   string
	Capacity int
}

// ValidAssign reports whether mode is an auto-assignment mode.
func ValidAssign(mode string) bool {
	return mode == AssignOff || mode == AssignRoundRobin || mode == AssignLeastBusy
}

// checkTeam validates in against the workspace (members) and its other teams (name), and
// returns it normalized.
func checkTeam(tx *kv.Tx, workspaceID, id string, in TeamInput, rt *Routing) (TeamInput, ValidationError) {
	var errs ValidationError
	in.Name = strings.TrimSpace(in.Name)
	switch n := runeLen(in.Name); {
	case n == 0:
		errs = append(errs, FieldError{"name", "is required"})
	case n > 100:
		errs = append(errs, FieldError{"name", "must be at most 100 characters"})
	default:
		for _, t := range rt.Teams {
			if t.ID != id && strings.EqualFold(t.Name, in.Name) {
				errs = append(errs, FieldError{"name", fmt.Sprintf("a team named %s exists already", t.Name)})
			}
		}
	}
	var members []string
	for _, m := range in.Members {
		if m = strings.TrimSpace(m); m == "" {
			continue
		}
		if !isMember(tx, workspaceID, m) {
			errs = append(errs, FieldError{"members", m + " is not a member of this workspace"})
			break
		}
		members = append(members, m)
	}
	in.Members = NormalizeGroup(members)
	if in.Assign == "" {
		in.Assign = AssignOff
	}
	if !ValidAssign(in.Assign) {
		errs = append(errs, FieldError{"assign", "must be off, round-robin or least-busy"})
	}
	if in.Capacity == 0 {
		in.Capacity = DefaultCapacity
	}
	if in.Capacity < 1 || in.Capacity > maxCapacity {
		errs = append(errs, FieldError{"capacity", fmt.Sprintf("must be from 1 to %d open conversations", maxCapacity)})
	}
	sortFieldErrors(errs)
	return in, errs
}

// CreateTeam adds a team to the workspace.
func (s *Store) CreateTeam(workspaceID string, in TeamInput) (Team, error) {
	var t Team
	_, err := s.changeRouting(workspaceID, func(tx *wtx, rt *Routing) error {
		got, errs := checkTeam(tx.Tx, workspaceID, "", in, rt)
		if errs != nil {
			return errs
		}
		if len(rt.Teams) >= maxTeams {
			return errorf(ErrConflict, "a workspace has at most %d teams", maxTeams)
		}
		t = Team{ID: s.NewID(), Name: got.Name, Members: orEmpty(got.Members), Assign: got.Assign, Capacity: got.Capacity}
		rt.Teams = append(rt.Teams, t)
		return nil
	})
	return t, err
}

// UpdateTeam changes a team's name, members, mode and capacity.
func (s *Store) UpdateTeam(workspaceID, id string, in TeamInput) (Team, error) {
	var t Team
	_, err := s.changeRouting(workspaceID, func(tx *wtx, rt *Routing) error {
		i := slices.IndexFunc(rt.Teams, func(t Team) bool { return t.ID == id })
		if i < 0 {
			return errorf(ErrNotFound, "team not found")
		}
		got, errs := checkTeam(tx.Tx, workspaceID, id, in, rt)
		if errs != nil {
			return errs
		}
		t = Team{ID: id, Name: got.Name, Members: orEmpty(got.Members), Assign: got.Assign, Capacity: got.Capacity}
		rt.Teams[i] = t
		return nil
	})
	return t, err
}

// DeleteTeam removes a team: numbers limited to it no longer are (unless by another team) and
// lose it as their default team. A team a rule assigns to is ErrConflict, naming the rule.
func (s *Store) DeleteTeam(workspaceID, id string) error {
	_, err := s.changeRouting(workspaceID, func(tx *wtx, rt *Routing) error {
		i := slices.IndexFunc(rt.Teams, func(t Team) bool { return t.ID == id })
		if i < 0 {
			return errorf(ErrNotFound, "team not found")
		}
		for _, r := range rt.Rules {
			for _, a := range r.Rule.Actions {
				if a.TeamID == id {
					return errorf(ErrConflict, "the rule %q assigns to this team: change or delete it first", r.Rule.Name)
				}
			}
		}
		rt.Teams = slices.Delete(rt.Teams, i, i+1)
		for _, n := range rt.Numbers {
			n.Teams = slices.DeleteFunc(slices.Clone(n.Teams), func(t string) bool { return t == id })
			if n.DefaultTeam == id {
				n.DefaultTeam = ""
			}
		}
		return nil
	})
	return err
}

// NumberAccess is who may use a number and who takes its new conversations; nil fields stay
// as they are.
type NumberAccess struct {
	Teams           *[]string
	DefaultTeam     *string
	DefaultAssignee *string
}

// SetNumberAccess limits a number to teams (none: every member) and sets its default team and
// default assignee ("" for none). The default assignee must be able to see the number.
func (s *Store) SetNumberAccess(workspaceID, numberID string, in NumberAccess) (NumberRouting, error) {
	var out NumberRouting
	_, err := s.changeRouting(workspaceID, func(tx *wtx, rt *Routing) error {
		n, err := routedNumber(tx.Tx, workspaceID, numberID, rt)
		if err != nil {
			return tx.refuse(err)
		}
		var errs ValidationError
		if in.Teams != nil {
			var teams []string
			for _, t := range *in.Teams {
				if t = strings.TrimSpace(t); t == "" {
					continue
				}
				if _, ok := rt.Team(t); !ok {
					errs = append(errs, FieldError{"teams", t + " is not a team of this workspace"})
					break
				}
				teams = append(teams, t)
			}
			n.Teams = NormalizeGroup(teams)
		}
		if in.DefaultTeam != nil {
			n.DefaultTeam = strings.TrimSpace(*in.DefaultTeam)
			if _, ok := rt.Team(n.DefaultTeam); n.DefaultTeam != "" && !ok {
				errs = append(errs, FieldError{"defaultTeam", n.DefaultTeam + " is not a team of this workspace"})
			}
		}
		if in.DefaultAssignee != nil {
			n.DefaultAssignee = strings.TrimSpace(*in.DefaultAssignee)
		}
		if u := n.DefaultAssignee; u != "" {
			switch {
			case !isMember(tx.Tx, workspaceID, u):
				errs = append(errs, FieldError{"defaultAssignee", u + " is not a member of this workspace"})
			case !mayUse(tx.Tx, rt, workspaceID, numberID, u):
				errs = append(errs, FieldError{"defaultAssignee", "must be a member of one of the number's teams (or an admin)"})
			}
		}
		if errs != nil {
			sortFieldErrors(errs)
			return errs
		}
		out = *n
		return nil
	})
	return out, err
}

// mayUse reports whether user may see and use numberID under rt: the number is limited to no
// team, or user is in one of its teams, or an admin of the workspace or a superuser.
func mayUse(tx *kv.Tx, rt *Routing, workspaceID, numberID, user string) bool {
	n := rt.Numbers[numberID]
	if n == nil || len(n.Teams) == 0 {
		return true
	}
	for _, id := range n.Teams {
		if t, ok := rt.Team(id); ok && slices.Contains(t.Members, user) {
			return true
		}
	}
	return workspaceAdmin(tx, workspaceID, user)
}

// workspaceAdmin reports whether user is an admin member of the workspace or a superuser.
func workspaceAdmin(tx *kv.Tx, workspaceID, user string) bool {
	var m Membership
	if ok, err := getJSON(tx.Bucket(bMemberships), wsKeyChecked(workspaceID, user), &m); err == nil && ok && m.Role == "admin" {
		return true
	}
	u, err := getUser(tx, user)
	return err == nil && u.Superuser
}
