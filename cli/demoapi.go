package cli

// demo-api: the reference screening service (package screenapi) served by
// hand, with its fault switches and untrusted certificates, for trying the
// console's failure handling. It lives apart from the dispatcher in cli.go.

import (
	"crypto/tls"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

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
