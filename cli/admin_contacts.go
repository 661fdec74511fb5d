package cli

import (
	"fmt"
	"os"
	"runtime/debug"
	"time"

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

func adminImportContacts(a *adminEnv, args []string) error {
	ws := a.fs.String("workspace", "", "workspace id")
	return a.withStore(args, func(s *store.Store) error {
		if err := required("workspace", *ws); err != nil {
			return err
		}
		if a.fs.NArg() != 1 {
			return fmt.Errorf("give exactly one CSV file after the flags")
		}
		f, err := os.Open(a.fs.Arg(0))
		if err != nil {
			return err
		}
		defer f.Close()
		// An import is a batch job that allocates a little per row and keeps little: a higher
		// collection target trades some memory for fewer collections (a quarter of an import's
		// CPU at the default).
		defer debug.SetGCPercent(debug.SetGCPercent(400))
		start := time.Now()
		rep, err := s.ImportContacts(*ws, f, func(p store.ImportProgress) {
			fmt.Fprintf(a.stderr, "\rimported %d rows (%s)", p.Rows, time.Since(start).Round(time.Second))
		})
		fmt.Fprintln(a.stderr)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "imported %d, updated %d, rejected %d\n", rep.Imported, rep.Updated, rep.Rejected)
		for _, e := range rep.Errors {
			fmt.Fprintf(a.stdout, "line %d: %s\n", e.Line, e.Reason)
		}
		return nil
	})
}
