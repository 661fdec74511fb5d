package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"switchboard/assist"
)

// assistKeyEnv holds the model server's key. It has no flag: a flag would show in the process
// list. The key is never logged, printed or shown on a page.
const assistKeyEnv = "SWITCHBOARD_ASSIST_KEY"

// assistConfig is the installation's model for Assist (-assist-url, -assist-model and the key
// from SWITCHBOARD_ASSIST_KEY); its URL "" leaves Assist out.
type assistConfig struct {
	URL   string
	Model string
	Key   string
	// client is the checked, reachable model server (set by connect before the server starts).
	client *assist.Client
}

// assistFlags registers -assist-url and -assist-model on fs and reads the key.
func assistFlags(fs *flag.FlagSet, a *assistConfig) {
	fs.StringVar(&a.URL, "assist-url", "", "OpenAI-compatible base URL of the model for Assist (Ollama: http://127.0.0.1:11434/v1); https, or http only on loopback; empty turns Assist off")
	fs.StringVar(&a.Model, "assist-model", "", "the model's name for Assist, as the server lists it (e.g. llama3.2)")
	a.Key = os.Getenv(assistKeyEnv)
}

// check refuses a URL that is not https (or http on loopback), and settings that go together
// given alone, with the reason in plain words. It contacts nothing.
func (a *assistConfig) check() error {
	if a.URL == "" {
		switch {
		case a.Model != "":
			return errors.New("-assist-model is set but -assist-url is not: set the model server's URL too, or neither")
		case a.Key != "":
			return errors.New(assistKeyEnv + " is set but -assist-url is not: set the model server's URL too, or unset the key")
		}
		return nil
	}
	if err := assist.CheckURL(a.URL); err != nil {
		return fmt.Errorf("-assist-url: %v", err)
	}
	if a.Model == "" {
		return errors.New("-assist-url needs -assist-model: the model's name as the server lists it (for Ollama, e.g. llama3.2)")
	}
	return nil
}

// connect builds the client and asks the server for its models, so that a server that cannot
// be reached, or refuses the key, stops the start with a plain reason instead of failing in
// front of a user later.
func (a *assistConfig) connect(ctx context.Context) error {
	if a.URL == "" {
		return nil
	}
	c, err := assist.New(assist.Config{URL: a.URL, Model: a.Model, Key: a.Key})
	if err != nil {
		return fmt.Errorf("-assist-url: %v", err)
	}
	if err := c.Probe(ctx); err != nil {
		return fmt.Errorf("-assist-url %s: %v", c.Host(), err)
	}
	a.client = c
	return nil
}
