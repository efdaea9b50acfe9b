package cli

import (
	"strings"
	"time"
)

// Desk is how the window brings work to the reviewer: how often it syncs
// by itself (REVIEWER_SYNC_EVERY or --sync-every: default 5m, "off" for
// never) and whether it notifies (REVIEWER_NOTIFY=off turns notifications
// off whatever Preferences say).
type Desk struct {
	// SyncEvery is the background sync's interval; zero: the window's
	// default (5 minutes); negative: no background sync.
	SyncEvery time.Duration
	NotifyOff bool
}

// Range of REVIEWER_SYNC_EVERY: no more often than a minute (the team's
// consoles share the service's rate limit), at least once a day.
const (
	minSyncEvery = time.Minute
	maxSyncEvery = 24 * time.Hour
)

// desk reads REVIEWER_SYNC_EVERY (--sync-every wins) and REVIEWER_NOTIFY,
// and checks them: the window refuses to start on a value it cannot use.
func (r *runner) desk() (Desk, error) {
	var d Desk
	name, v := "--sync-every", r.g.syncEvery
	if v == "" {
		name = "REVIEWER_SYNC_EVERY"
		v, _ = r.env.Lookup(name)
	}
	switch v = strings.TrimSpace(v); strings.ToLower(v) {
	case "":
	case "off":
		d.SyncEvery = -1
	default:
		every, err := time.ParseDuration(v)
		if err != nil {
			return d, usagef("%s=%q is not a Go duration such as 5m (or off)", name, v)
		}
		if every < minSyncEvery || every > maxSyncEvery {
			return d, usagef("%s %v: want %v to %v (or off)", name, every, minSyncEvery, maxSyncEvery)
		}
		d.SyncEvery = every
	}
	if v, ok := r.env.Lookup("REVIEWER_NOTIFY"); ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "", "on":
		case "off":
			d.NotifyOff = true
		default:
			return d, usagef("REVIEWER_NOTIFY=%q: want on or off", v)
		}
	}
	return d, nil
}
