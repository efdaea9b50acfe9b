package client_test

import (
	"context"
	"crypto/tls"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/screenapi"
)

const testToken = "tok-9f8e7d6c5b4a-very-secret"

// sleeper records the waits before retries instead of sleeping, and runs a
// hook in their place (say, to bring the server back).
type sleeper struct {
	mu    sync.Mutex
	waits []time.Duration
	hook  func()
}

func (s *sleeper) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	hook := s.hook
	s.mu.Unlock()
	if hook != nil {
		hook()
	}
	return ctx.Err()
}

func (s *sleeper) count() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

// dialCounter wraps the real dialer and counts dials.
type dialCounter struct {
	mu sync.Mutex
	n  int
}

func (d *dialCounter) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	d.n++
	d.mu.Unlock()
	return (&net.Dialer{}).DialContext(ctx, network, addr)
}

func (d *dialCounter) count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.n
}

func testConfig(url string) client.Config {
	cfg := client.DefaultConfig()
	cfg.BaseURL = url
	cfg.Token = testToken
	cfg.Timeout = 2 * time.Second
	cfg.ConnectTimeout = time.Second
	cfg.Reserve = 20 * time.Millisecond
	return cfg
}

// setup starts the reference service on loopback and a client pointed at it.
func setup(t *testing.T, mod ...func(*client.Config)) (*screenapi.Server, *client.Client, *sleeper, *dialCounter) {
	t.Helper()
	srv, err := screenapi.Start("127.0.0.1:0", screenapi.Options{Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	cfg := testConfig(srv.URL())
	for _, m := range mod {
		m(&cfg)
	}
	sl, dc := &sleeper{}, &dialCounter{}
	c, err := client.New(cfg, client.WithSleep(sl.sleep), client.WithDialer(dc.dial))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return srv, c, sl, dc
}

// closedPort returns a loopback address where nothing listens.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// newCA makes a throwaway CA that the test's client trusts.
func newCA(t *testing.T) *screenapi.CA {
	t.Helper()
	ca, err := screenapi.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	return ca
}

// leaf issues a server certificate; selfSigned ignores the CA.
func leaf(t *testing.T, ca *screenapi.CA, ip string, notAfter time.Time, selfSigned bool) tls.Certificate {
	t.Helper()
	c, err := ca.Leaf(ip, notAfter, selfSigned)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// pollUntil waits for a condition that only the passing of time can make
// true (the breaker's timer), checking often and failing after max.
func pollUntil(t *testing.T, max time.Duration, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	limit := time.After(max)
	for !cond() {
		select {
		case <-tick.C:
		case <-limit:
			t.Fatalf("condition not met within %v", max)
		}
	}
}

const anaToken, benToken = "tok-ana-0123456789", "tok-ben-0123456789"

// setupTeam starts a service that knows ana and ben, and a client for each.
func setupTeam(t *testing.T, version string) (*screenapi.Server, *client.Client, *client.Client) {
	t.Helper()
	srv, err := screenapi.Start("127.0.0.1:0", screenapi.Options{APIVersion: version, Reviewers: []screenapi.Reviewer{
		{Name: "ana", DisplayName: "Ana Lima", Token: anaToken}, {Name: "ben", DisplayName: "Ben Okafor", Token: benToken}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	mk := func(tok string) *client.Client {
		cfg := testConfig(srv.URL())
		cfg.Token = client.Secret(tok)
		c, err := client.New(cfg, client.WithSleep((&sleeper{}).sleep))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		return c
	}
	return srv, mk(anaToken), mk(benToken)
}
