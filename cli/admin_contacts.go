package cli

import (
	"fmt"

	"switchboard/store"
)

// adminCreateGroup prints the new group's id.
func adminCreateGroup(a *adminEnv, args []string) error {
	ws := a.fs.String("workspace", "", "workspace id")
	name := a.fs.String("name", "", "group name (unique in the workspace)")
	return a.withStore(args, func(s *store.Store) error {
		if err := required("workspace", *ws, "name", *name); err != nil {
			return err
		}
		g, err := s.CreateGroup(*ws, *name)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, g.ID)
		return nil
	})
}

// adminAddToGroup puts the contact of a phone (created when missing) into a group given by id or
// name (created when no group has that name) and prints the contact's id.
func adminAddToGroup(a *adminEnv, args []string) error {
	ws := a.fs.String("workspace", "", "workspace id")
	group := a.fs.String("group", "", "group id or name")
	phone := a.fs.String("phone", "", "E.164 number of the contact")
	return a.withStore(args, func(s *store.Store) error {
		if err := required("workspace", *ws, "group", *group, "phone", *phone); err != nil {
			return err
		}
		name := *group
		if g, err := s.Group(*ws, *group); err == nil {
			name = g.Name
		}
		c, _, err := s.AddToGroup(*ws, name, *phone)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, c.ID)
		return nil
	})
}

func adminAddProperty(a *adminEnv, args []string) error {
	ws := a.fs.String("workspace", "", "workspace id")
	name := a.fs.String("name", "", "property name (letters, digits, _)")
	typ := a.fs.String("type", "", "text, number, boolean or date")
	return a.withStore(args, func(s *store.Store) error {
		if err := required("workspace", *ws, "name", *name, "type", *typ); err != nil {
			return err
		}
		p, err := s.AddProperty(*ws, *name, *typ)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, p.ID)
		return nil
	})
}
