package client_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
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

// certs makes a CA and a leaf certificate for 127.0.0.1 signed by it.
type certs struct {
	pool *x509.CertPool
	ca   *x509.Certificate
	key  *ecdsa.PrivateKey
}

func newCA(t *testing.T) *certs {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return &certs{pool: pool, ca: ca, key: key}
}

// leaf issues a server certificate; selfSigned ignores the CA.
func (c *certs) leaf(t *testing.T, ip string, notAfter time.Time, selfSigned bool) tls.Certificate {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: ip},
		NotBefore: notAfter.Add(-48 * time.Hour), NotAfter: notAfter,
		IPAddresses: []net.IP{net.ParseIP(ip)}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		KeyUsage: x509.KeyUsageDigitalSignature}
	parent, signer := c.ca, c.key
	if selfSigned {
		parent, signer = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, signer)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
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
