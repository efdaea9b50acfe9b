package cli

// demo-api: the reference screening service (package screenapi) served by
// hand, with its fault switches and untrusted certificates, for trying the
// console's failure handling, and its reviewers and contract version
// (--reviewer, --reviewers-file, --api-version, --demo). It lives apart
// from the dispatcher in cli.go.

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/internal/safefile"
	"github.com/trustscreen/reviewer/screenapi"
)

func (r *runner) demoAPI(args []string) (int, error) {
	// demo-api has its own --reviewer (NAME=TOKEN) and only the service's
	// own flags: the client's (--db, --reserve…) mean nothing to it.
	fs := r.demoFlags()
	addr := fs.String("addr", "127.0.0.1:8001", "listen address")
	latency := fs.Duration("latency", 0, "added to every request")
	analysis := fs.Duration("analysis-latency", 0, "how long one analysis takes")
	tlsMode := fs.String("tls", "", "serve HTTPS with an untrusted certificate: expired or self-signed")
	batches := fs.Int("batches", 48, "how many batches to seed (the performance suite seeds 10,000)")
	perBatch := fs.Int("items-per-batch", 0, "items in each seeded batch, 1 to 10 (0: 1 to 10 at random)")
	var faults []screenapi.Fault
	fs.Func("fault", "switch a fault on: KIND[:ENDPOINT[:TIMES]] (repeatable); kinds: "+faultKinds(), func(v string) error {
		f, err := parseFault(v)
		faults = append(faults, f)
		return err
	})
	team := r.teamFlags(fs)
	if _, err := r.parse(fs, args, 0); err != nil {
		return ExitUsage, err
	}
	tok, _ := r.env.Lookup("REVIEWER_API_TOKEN")
	if *batches < 1 || *perBatch < 0 || *perBatch > 10 {
		return ExitUsage, usagef("--batches must be at least 1 and --items-per-batch 0 to 10")
	}
	opts := screenapi.Options{Token: strings.TrimSpace(tok), Latency: *latency, AnalysisLatency: *analysis,
		Batches: *batches, ItemsPerBatch: *perBatch}
	if err := team.apply(&opts, r.g.demo); err != nil {
		return ExitUsage, err
	}
	if w := exposureWarning(*addr, opts); w != "" {
		fmt.Fprintf(r.env.Stderr, "reviewer: warning: %s\n", w)
	}
	var srv *screenapi.Server
	var err error
	switch *tlsMode {
	case "":
		srv, err = screenapi.Start(*addr, opts)
	case "expired", "self-signed":
		var cert tls.Certificate
		if cert, err = untrustedCert(*addr, *tlsMode); err == nil {
			srv, err = screenapi.StartTLS(*addr, opts, cert)
		}
	default:
		return ExitUsage, usagef("--tls %q: want expired or self-signed", *tlsMode)
	}
	if err != nil {
		return ExitFailure, err
	}
	defer srv.Close()
	for _, f := range faults {
		srv.SetFault(f)
	}
	fmt.Fprintf(r.env.Stdout, "reference screening service %s on %s (Ctrl-C stops it)\n", opts.APIVersion, srv.URL())
	r.printDemoReviewers(srv.URL(), opts.Reviewers)
	if len(faults) == 0 {
		fmt.Fprintln(r.env.Stdout, "faults: none")
	}
	for _, f := range faults {
		fmt.Fprintf(r.env.Stdout, "fault on: %s\n", describeFault(f))
	}
	ctx, cancel := signalContext()
	defer cancel()
	<-ctx.Done()
	return ExitOK, nil
}

// demoFlags is the flag set of demo-api: the cache and client flags mean
// nothing to a server, and its --reviewer is NAME=TOKEN, not a name.
func (r *runner) demoFlags() *flag.FlagSet {
	fs := flag.NewFlagSet("demo-api", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.BoolVar(&r.g.demo, "demo", r.g.demo, "serve the built-in pair of reviewers (ana and ben), printed at start")
	return fs
}

// teamOptions are demo-api's switches of contract versions 1.1 and 1.2.
type teamOptions struct {
	reviewers []screenapi.Reviewer
	version   string
	// err is the first refused --reviewer or --reviewers-file. It is kept
	// here, not returned to the flag package, whose message would quote
	// the value given: NAME=TOKEN.
	err error
}

// keep records the first refusal of a reviewer flag.
func (t *teamOptions) keep(err error) error {
	if err != nil && t.err == nil {
		t.err = usagef("%v", err)
	}
	return nil
}

func (r *runner) teamFlags(fs *flag.FlagSet) *teamOptions {
	t := &teamOptions{version: screenapi.Version11}
	fs.Func("reviewer", "a reviewer and their token: NAME=TOKEN (repeatable; the token shows in the process list: prefer --reviewers-file)", func(v string) error {
		name, tok, ok := strings.Cut(v, "=")
		if !ok || strings.TrimSpace(name) == "" || strings.TrimSpace(tok) == "" {
			return t.keep(fmt.Errorf("--reviewer wants NAME=TOKEN"))
		}
		return t.keep(t.add("--reviewer", name, tok))
	})
	fs.Func("reviewers-file", "a file of NAME=TOKEN lines, one reviewer each (# starts a comment); readable by its owner only", func(path string) error {
		return t.keep(t.readFile(path))
	})
	fs.StringVar(&t.version, "api-version", t.version, "contract version to serve: 1.1, 1.2 (decisions with four eyes, reason codes), or 1.0 (no 1.1 fields, 404 on 1.1 endpoints)")
	return t
}

// add adds a reviewer; from says where it was given (never the token).
func (t *teamOptions) add(from, name, tok string) error {
	name, tok = strings.TrimSpace(name), strings.TrimSpace(tok)
	if len(tok) < client.MinTokenLength {
		// A console would refuse it at start: say so here, not there.
		return fmt.Errorf("%s: reviewer %s: the token has %d characters; a console takes at least %d", from, name, len(tok), client.MinTokenLength)
	}
	for _, rv := range t.reviewers {
		if rv.Name == name || rv.Token == tok {
			return fmt.Errorf("%s: reviewer %s: each reviewer and each token once", from, name)
		}
	}
	t.reviewers = append(t.reviewers, screenapi.Reviewer{Name: name, DisplayName: displayName(name), Token: tok})
	return nil
}

// maxReviewersFile is the most read of a --reviewers-file.
const maxReviewersFile = 1 << 20

// readFile reads --reviewers-file: NAME=TOKEN lines, blank lines and
// comments skipped. Like a token file it is refused when its group or
// others may read it: it holds every reviewer's token. Errors name the file
// and the line, never a token.
func (t *teamOptions) readFile(path string) error {
	f, fi, err := safefile.Open(path)
	if err != nil {
		var nr *safefile.NotRegularError
		if errors.As(err, &nr) {
			return fmt.Errorf("--reviewers-file %v", err)
		}
		return fmt.Errorf("--reviewers-file: cannot read %s: %v", path, unwrapPathErr(err))
	}
	defer f.Close()
	if perm := fi.Mode().Perm(); perm&0o044 != 0 {
		return fmt.Errorf("--reviewers-file %s can be read by other users (mode %04o): it holds tokens; chmod 600 %s", path, perm, path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxReviewersFile+1))
	if err != nil {
		return fmt.Errorf("--reviewers-file: cannot read %s: %v", path, unwrapPathErr(err))
	}
	if len(data) > maxReviewersFile {
		return fmt.Errorf("--reviewers-file %s is larger than %s", path, safefile.Size(maxReviewersFile))
	}
	n := 0
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		where := fmt.Sprintf("--reviewers-file %s line %d", path, i+1)
		name, tok, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(name) == "" || strings.TrimSpace(tok) == "" {
			return fmt.Errorf("%s: want NAME=TOKEN", where)
		}
		if err := t.add(where, name, tok); err != nil {
			return err
		}
		n++
	}
	if n == 0 {
		return fmt.Errorf("--reviewers-file %s names no reviewer (want NAME=TOKEN lines)", path)
	}
	return nil
}

// unwrapPathErr drops the operation and path of an *fs.PathError: the
// message names the path itself.
func unwrapPathErr(err error) error {
	var pe *iofs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (t *teamOptions) apply(opts *screenapi.Options, demo bool) error {
	if t.err != nil {
		return t.err
	}
	switch t.version {
	case screenapi.Version10, screenapi.Version11, screenapi.Version12:
	default:
		return usagef("--api-version %q: want 1.0, 1.1 or 1.2", t.version)
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

// describeFault says in words what a switched-on fault does.
func describeFault(f screenapi.Fault) string {
	where := "every endpoint"
	if f.Endpoint != "" {
		where = "the " + f.Endpoint + " endpoint"
	}
	times := "until the service stops"
	if f.Times == 1 {
		times = "for the next request"
	} else if f.Times > 1 {
		times = fmt.Sprintf("for the next %d requests", f.Times)
	}
	return fmt.Sprintf("%s on %s, %s", f.Kind, where, times)
}

func faultKinds() string {
	var ks []string
	for _, k := range screenapi.FaultKinds() {
		ks = append(ks, string(k))
	}
	return strings.Join(ks, ", ")
}

// parseFault reads KIND[:ENDPOINT[:TIMES]].
func parseFault(v string) (screenapi.Fault, error) {
	parts := strings.Split(v, ":")
	f := screenapi.Fault{Kind: screenapi.FaultKind(parts[0])}
	known := false
	for _, k := range screenapi.FaultKinds() {
		known = known || k == f.Kind
	}
	if !known {
		return f, fmt.Errorf("unknown fault %q; kinds: %s", parts[0], faultKinds())
	}
	if len(parts) > 1 {
		f.Endpoint = parts[1]
	}
	if len(parts) > 2 {
		n, err := strconv.Atoi(parts[2])
		if err != nil || n < 0 {
			return f, fmt.Errorf("fault %q: TIMES must be a whole number", v)
		}
		f.Times = n
	}
	return f, nil
}

// untrustedCert makes the certificate of a TLS fault for the listen host.
func untrustedCert(addr, mode string) (tls.Certificate, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return tls.Certificate{}, err
	}
	ca, err := screenapi.NewCA()
	if err != nil {
		return tls.Certificate{}, err
	}
	if mode == "expired" {
		return ca.Leaf(host, time.Now().Add(-time.Hour), false)
	}
	return ca.Leaf(host, time.Now().Add(24*time.Hour), true)
}

// loopbackOnly reports whether a listen address is reachable from this
// computer only: a loopback IP, or localhost. An empty host (":8001") is
// every interface; any other name is taken as reachable from outside.
func loopbackOnly(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// exposureWarning is what demo-api says before it listens on an address
// reachable from other computers while anyone may act there: with the
// built-in demo tokens (public: printed at start and in the README), or
// with no token at all. "" when there is nothing to say.
func exposureWarning(addr string, opts screenapi.Options) string {
	if loopbackOnly(addr) {
		return ""
	}
	public := map[string]bool{}
	for _, d := range screenapi.DemoReviewers() {
		public[d.Token] = true
	}
	var names []string
	for _, rv := range opts.Reviewers {
		if public[rv.Token] {
			names = append(names, rv.Name)
		}
	}
	switch {
	case len(names) > 0:
		return fmt.Sprintf("%s is reachable from other computers, and the demo tokens of %s are public (printed at start and in the README): "+
			"anyone who reaches this address can act as them; listen on 127.0.0.1, or give your own tokens with --reviewers-file instead of --demo",
			addr, strings.Join(names, " and "))
	case opts.Token == "" && len(opts.Reviewers) == 0:
		return fmt.Sprintf("%s is reachable from other computers, and no token is asked (neither REVIEWER_API_TOKEN nor --reviewers-file): "+
			"anyone who reaches this address can read and act; listen on 127.0.0.1, or set a token", addr)
	}
	return ""
}
