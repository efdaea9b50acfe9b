package cli_test

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/screenapi"
)

// A sync stopped by one Ctrl-C is a read that did not finish: exit 7, the
// cache keeps what it had, and the line says to run it again (it was exit
// 1 with no next step).
func TestASyncStoppedByCtrlCIsAFailedRead(t *testing.T) {
	h := newHarness(t)
	h.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultHang, Endpoint: screenapi.EPBatches, Times: 1})
	type res struct {
		code      int
		out, errs string
	}
	done := make(chan res, 1)
	go func() {
		code, out, errs := h.run("sync")
		done <- res{code, out, errs}
	}()
	// The request reached the service: the command's signal handling is
	// installed (it is, before any call), so the SIGINT stops the command,
	// not the test binary.
	for h.srv.Arrivals(screenapi.EPBatches) == 0 {
		select {
		case r := <-done:
			t.Fatalf("the sync ended before the service saw it: %d %s %s", r.code, r.out, r.errs)
		case <-time.After(5 * time.Millisecond):
		}
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	var r res
	select {
	case r = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the sync did not stop within 60 s of a Ctrl-C")
	}
	if r.code != 7 || !strings.Contains(r.errs, "run 'reviewer sync' again") || strings.Count(strings.TrimSpace(r.errs), "\n") != 0 {
		t.Fatalf("a sync stopped by Ctrl-C: exit %d, stderr %q", r.code, r.errs)
	}
}
