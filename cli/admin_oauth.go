package cli

import (
	"fmt"
	"strings"
	"time"

	"switchboard/oauth"
	"switchboard/store"
)

// withProvider is withStore plus the OAuth provider on the same store (creating its buckets).
func (a *adminEnv) withProvider(args []string, fn func(p *oauth.Provider) error) error {
	return a.withStore(args, func(s *store.Store) error {
		p, err := oauth.New(s, oauth.Config{})
		if err != nil {
			return err
		}
		return fn(p)
	})
}

// repeated is a flag that may be given more than once (--redirect-uri U --redirect-uri U2).
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

func adminCreateOAuthClient(a *adminEnv, args []string) error {
	name := a.fs.String("name", "", "the integration's name, shown on the consent page")
	var uris repeated
	a.fs.Var(&uris, "redirect-uri", "a redirect URI, matched exactly (repeat for more)")
	public := a.fs.Bool("public", false, "a public client: no secret, PKCE (S256) required")
	return a.withProvider(args, func(p *oauth.Provider) error {
		if err := required("name", *name, "redirect-uri", uris.String()); err != nil {
			return err
		}
		c, secret, err := p.CreateClient(oauth.NewClient{Name: *name, RedirectURIs: uris, Public: *public})
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, c.ID)
		if secret != "" {
			fmt.Fprintln(a.stdout, secret)
			fmt.Fprintln(a.stderr, "The secret (line 2) is shown only now; store it in the integration.")
		}
		return nil
	})
}

func adminListOAuthClients(a *adminEnv, args []string) error {
	return a.withProvider(args, func(p *oauth.Provider) error {
		cs, err := p.Clients()
		if err != nil {
			return err
		}
		for _, c := range cs {
			kind := "confidential"
			if c.Public {
				kind = "public"
			}
			fmt.Fprintf(a.stdout, "%s\t%s\t%s\t%s\n", c.ID, kind, c.Name, strings.Join(c.RedirectURIs, " "))
		}
		return nil
	})
}

func adminDeleteOAuthClient(a *adminEnv, args []string) error {
	id := a.fs.String("client", "", "client id")
	return a.withProvider(args, func(p *oauth.Provider) error {
		if err := required("client", *id); err != nil {
			return err
		}
		if err := p.DeleteClient(*id); err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, *id)
		return nil
	})
}

func adminRotateOAuthSecret(a *adminEnv, args []string) error {
	id := a.fs.String("client", "", "client id")
	return a.withProvider(args, func(p *oauth.Provider) error {
		if err := required("client", *id); err != nil {
			return err
		}
		secret, err := p.RotateSecret(*id)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, secret)
		return nil
	})
}

func adminListGrants(a *adminEnv, args []string) error {
	user := a.fs.String("user", "", "user id")
	return a.withProvider(args, func(p *oauth.Provider) error {
		if err := required("user", *user); err != nil {
			return err
		}
		gs, err := p.Grants(*user)
		if err != nil {
			return err
		}
		for _, g := range gs {
			fmt.Fprintf(a.stdout, "%s\t%s\t%s\tconnected %s\tlast used %s\n", g.ID, g.ClientID, g.ClientName,
				g.CreatedAt.Format(time.RFC3339), g.LastUsedAt.Format(time.RFC3339))
		}
		return nil
	})
}

func adminRevokeGrant(a *adminEnv, args []string) error {
	id := a.fs.String("grant", "", "grant id (see list-grants)")
	return a.withProvider(args, func(p *oauth.Provider) error {
		if err := required("grant", *id); err != nil {
			return err
		}
		if err := p.RevokeGrant(*id); err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, *id)
		return nil
	})
}
