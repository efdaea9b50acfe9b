package client_test

import (
	"context"
	"net"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
)

// fullBacklog returns a loopback address whose listen queue is full: the
// kernel drops further SYNs, so a connect hangs until its timeout, as it
// does against a host that has gone away. A real socket, no mock.
func fullBacklog(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Skip("no raw socket:", err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, _ := syscall.Getsockname(fd)
	addr := "127.0.0.1:" + strconv.Itoa(sa.(*syscall.SockaddrInet4).Port)
	// Fill the queue: nobody accepts, so these stay pending.
	for i := 0; i < 8; i++ {
		c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err != nil {
			return addr // the queue is full: this dial timed out
		}
		t.Cleanup(func() { c.Close() })
	}
	t.Skip("could not fill the listen queue on this kernel")
	return ""
}

func TestConnectTimeoutIsNotConnectedAndRetriedOnce(t *testing.T) {
	addr := fullBacklog(t)
	sl, dc := &sleeper{}, &dialCounter{}
	cfg := testConfig("http://" + addr)
	cfg.ConnectTimeout = 150 * time.Millisecond
	c, err := client.New(cfg, client.WithSleep(sl.sleep), client.WithDialer(dc.dial))
	if err != nil {
		t.Fatal(err)
	}
	_, attempts, err := c.Resubmit(context.Background(), "itm_1", "k-connect")
	mustClientErr(t, err, client.ClassNotConnected, policy.CodeAPIUnreachable)
	if len(attempts) != 2 || dc.count() != 2 || len(sl.count()) != 1 {
		t.Fatalf("attempts %d dials %d waits %v", len(attempts), dc.count(), sl.count())
	}
	for _, a := range attempts {
		if a.ConnectTimeout != 150*time.Millisecond || a.Elapsed < 150*time.Millisecond || a.Elapsed > 2*time.Second {
			t.Fatalf("attempt %+v: the connect timeout, not the request cap, must end it", a)
		}
	}
}

// nxdomainServer is a DNS server on loopback that answers every query with
// NXDOMAIN, so a name lookup fails for real without leaving the machine.
func nxdomainServer(t *testing.T) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			q := buf[:n]
			if n < 12 {
				continue
			}
			i := 12
			for i < n && q[i] != 0 {
				i += int(q[i]) + 1
			}
			i += 5 // the root label, type and class
			if i > n {
				continue
			}
			reply := append([]byte{}, q[:i]...)
			reply[2], reply[3] = 0x81, 0x83 // a response, recursion available, NXDOMAIN
			reply[6], reply[7], reply[8], reply[9], reply[10], reply[11] = 0, 0, 0, 0, 0, 0
			_, _ = pc.WriteTo(reply, from)
		}
	}()
	return pc.LocalAddr().String()
}

func TestDNSFailureIsNotConnectedAndRetriedOnce(t *testing.T) {
	dns := nxdomainServer(t)
	var lookups atomic.Int32
	d := &net.Dialer{Resolver: &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		lookups.Add(1)
		return (&net.Dialer{}).DialContext(ctx, "udp", dns) // never the system's resolver
	}}}
	sl := &sleeper{}
	cfg := testConfig("https://screening.invalid")
	c, err := client.New(cfg, client.WithSleep(sl.sleep), client.WithDialer(d.DialContext))
	if err != nil {
		t.Fatal(err)
	}
	_, attempts, err := c.GetItem(context.Background(), "itm_1")
	e := mustClientErr(t, err, client.ClassNotConnected, policy.CodeAPIUnreachable)
	if len(attempts) != 2 || len(sl.count()) != 1 || lookups.Load() == 0 {
		t.Fatalf("attempts %d waits %v lookups %d (%v)", len(attempts), sl.count(), lookups.Load(), e)
	}
}
