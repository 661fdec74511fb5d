// Package mail sends Switchboard's e-mail over SMTP from the durable outbox in the store:
// store functions write a mail row in the transaction of the change that causes it; the
// worker here sends due rows and retries failures with backoff, so a crash or an unreachable
// server loses none.
package mail

import (
	"context"
	"fmt"
	"net/mail"
	"net/url"
	"strconv"
	"time"

	gomail "github.com/wneessen/go-mail"

	"switchboard/store"
)

// Config is the SMTP server (-smtp-url) and the sender (-smtp-from).
type Config struct {
	// URL is smtp://user:pass@host:587 (STARTTLS when the server offers it) or
	// smtps://user:pass@host:465 (TLS from the first byte); "" sends nothing.
	URL string
	// From is the sender, "Switchboard <sms@example.com>".
	From string
	// Timeout bounds one connection and send; 0 means 30 s.
	Timeout time.Duration
}

// Enabled reports whether e-mail is configured.
func (c Config) Enabled() bool { return c.URL != "" }

// Check validates the configuration: a URL of the smtp or smtps scheme with a host, and a
// sender address.
func (c Config) Check() error {
	if c.URL == "" {
		return nil
	}
	u, err := url.Parse(c.URL)
	if err != nil || (u.Scheme != "smtp" && u.Scheme != "smtps") || u.Hostname() == "" {
		return fmt.Errorf("-smtp-url must look like smtp://user:pass@host:587 or smtps://user:pass@host:465")
	}
	if u.Port() != "" {
		if _, err := strconv.Atoi(u.Port()); err != nil {
			return fmt.Errorf("-smtp-url: the port must be a number")
		}
	}
	if _, err := mail.ParseAddress(c.From); err != nil {
		return fmt.Errorf("-smtp-from must be an address such as \"Switchboard <sms@example.com>\" when -smtp-url is set")
	}
	return nil
}

// client builds the go-mail client of the configuration.
func (c Config) client() (*gomail.Client, error) {
	u, err := url.Parse(c.URL)
	if err != nil {
		return nil, err
	}
	timeout := c.Timeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	opts := []gomail.Option{gomail.WithTimeout(timeout)}
	port := 587
	if u.Scheme == "smtps" {
		port = 465
		opts = append(opts, gomail.WithSSL())
	} else {
		// STARTTLS when the server offers it; a server that offers none is spoken to in clear.
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	}
	if p := u.Port(); p != "" {
		port, _ = strconv.Atoi(p)
	}
	opts = append(opts, gomail.WithPort(port))
	if u.User != nil && u.User.Username() != "" {
		pass, _ := u.User.Password()
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(u.User.Username()), gomail.WithPassword(pass))
	}
	return gomail.NewClient(u.Hostname(), opts...)
}

// Send sends one e-mail now (the worker, and `switchboard admin test-email`).
func (c Config) Send(ctx context.Context, m store.Mail) error {
	msg := gomail.NewMsg()
	if err := msg.From(c.From); err != nil {
		return fmt.Errorf("mail: from: %w", err)
	}
	if err := msg.To(m.To); err != nil {
		return fmt.Errorf("mail: to: %w", err)
	}
	msg.Subject(m.Subject)
	msg.SetBodyString(gomail.TypeTextPlain, m.Body)
	msg.SetDate()
	msg.SetMessageID()
	cl, err := c.client()
	if err != nil {
		return fmt.Errorf("mail: %w", err)
	}
	if err := cl.DialAndSendWithContext(ctx, msg); err != nil {
		return fmt.Errorf("mail: send to %s: %w", m.To, err)
	}
	return nil
}
