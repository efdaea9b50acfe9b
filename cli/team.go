package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/trustscreen/reviewer/screenapi"
)

// demoFlags is the flag set of demo-api: the cache and client flags mean
// nothing to a server, and its --reviewer is NAME=TOKEN, not a name.
func (r *runner) demoFlags() *flag.FlagSet {
	fs := flag.NewFlagSet("demo-api", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.BoolVar(&r.g.demo, "demo", r.g.demo, "serve the built-in pair of reviewers (ana and ben), printed at start")
	return fs
}

// teamOptions are demo-api's switches of contract version 1.1.
type teamOptions struct {
	reviewers []screenapi.Reviewer
	version   string
}

func (r *runner) teamFlags(fs *flag.FlagSet) *teamOptions {
	t := &teamOptions{version: screenapi.Version11}
	fs.Func("reviewer", "a reviewer and their token: NAME=TOKEN (repeatable)", func(v string) error {
		name, tok, ok := strings.Cut(v, "=")
		name, tok = strings.TrimSpace(name), strings.TrimSpace(tok)
		if !ok || name == "" || tok == "" {
			return fmt.Errorf("--reviewer wants NAME=TOKEN")
		}
		for _, rv := range t.reviewers {
			if rv.Name == name || rv.Token == tok {
				return fmt.Errorf("--reviewer %s: each reviewer and each token once", name)
			}
		}
		t.reviewers = append(t.reviewers, screenapi.Reviewer{Name: name, DisplayName: displayName(name), Token: tok})
		return nil
	})
	fs.StringVar(&t.version, "api-version", t.version, "contract version to serve: 1.1, or 1.0 (no 1.1 fields, 404 on 1.1 endpoints)")
	return t
}

func (t *teamOptions) apply(opts *screenapi.Options, demo bool) error {
	switch t.version {
	case screenapi.Version10, screenapi.Version11:
	default:
		return usagef("--api-version %q: want 1.0 or 1.1", t.version)
	}
	opts.APIVersion = t.version
	opts.Reviewers = t.reviewers
	if demo {
		opts.Reviewers = append(opts.Reviewers, screenapi.DemoReviewers()...)
	}
	return nil
}

// displayName makes "Ana" of "ana" for a reviewer given on the command line.
func displayName(name string) string {
	if name == "" {
		return name
	}
	return strings.ToUpper(name[:1]) + name[1:]
}

// printDemoReviewers tells a person how to start a console as each of the
// built-in demo reviewers. Only the demo pair's tokens are printed: they are
// public by design; a token given with --reviewer never is.
func (r *runner) printDemoReviewers(url string, reviewers []screenapi.Reviewer) {
	demo := map[string]bool{}
	for _, d := range screenapi.DemoReviewers() {
		demo[d.Token] = true
	}
	for _, rv := range reviewers {
		if !demo[rv.Token] {
			fmt.Fprintf(r.env.Stdout, "reviewer %s (%s): token given on the command line\n", rv.Name, rv.DisplayName)
			continue
		}
		fmt.Fprintf(r.env.Stdout, "reviewer %s (%s): REVIEWER_API_URL=%s REVIEWER_API_TOKEN=%s REVIEWER_DB=/tmp/reviewer-%s.db reviewer\n",
			rv.Name, rv.DisplayName, url, rv.Token, rv.Name)
	}
}
