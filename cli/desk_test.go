package cli_test

import (
	"strings"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/cli"
)

// The window's background sync and notifications are settings:
// --sync-every wins over REVIEWER_SYNC_EVERY (default: the window's 5m;
// "off": none), REVIEWER_NOTIFY=off turns notifications off, and a value
// the window cannot use stops it, naming where it came from.
func TestDeskIsConfigured(t *testing.T) {
	h := newHarness(t)
	if got, _ := h.window(0); got.Desk != (cli.Desk{}) {
		t.Fatalf("defaults: %+v", got.Desk)
	}
	h.env["REVIEWER_SYNC_EVERY"] = "10m"
	h.env["REVIEWER_NOTIFY"] = "off"
	if got, _ := h.window(0); got.Desk != (cli.Desk{SyncEvery: 10 * time.Minute, NotifyOff: true}) {
		t.Fatalf("REVIEWER_SYNC_EVERY=10m REVIEWER_NOTIFY=off: %+v", got.Desk)
	}
	if got, _ := h.window(0, "--sync-every", "off"); got.Desk.SyncEvery >= 0 {
		t.Fatalf("--sync-every off: %+v", got.Desk)
	}
	for _, tc := range []struct {
		args []string
		env  map[string]string
		name string
	}{
		{[]string{"--sync-every", "10s"}, nil, "--sync-every"},
		{nil, map[string]string{"REVIEWER_SYNC_EVERY": "often"}, "REVIEWER_SYNC_EVERY"},
		{nil, map[string]string{"REVIEWER_SYNC_EVERY": "48h"}, "REVIEWER_SYNC_EVERY"},
		{nil, map[string]string{"REVIEWER_SYNC_EVERY": "", "REVIEWER_NOTIFY": "quiet"}, "REVIEWER_NOTIFY"},
	} {
		for k, v := range tc.env {
			h.env[k] = v
		}
		if got, errs := h.window(2, tc.args...); !strings.Contains(errs, tc.name) || got.Service != nil || got.SignIn != nil {
			t.Fatalf("%v %v: %s (the window opened: %v)", tc.args, tc.env, errs, got.Service != nil || got.SignIn != nil)
		}
	}
}
