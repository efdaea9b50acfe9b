package main

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/godbus/dbus/v5"
)

// trayHost reports whether the desktop shows tray icons: on Linux, whether
// a StatusNotifierWatcher (the tray host of GNOME's AppIndicator extension,
// KDE, XFCE and others) owns its name on the session bus. Without one the
// icon would show nowhere, and a window hidden to it could not come back:
// the window offers no tray then. It never starts a bus of its own.
func trayHost() bool {
	addr := os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	if addr == "" {
		dir := os.Getenv("XDG_RUNTIME_DIR")
		if dir == "" {
			return false
		}
		sock := filepath.Join(dir, "bus")
		if _, err := os.Stat(sock); err != nil {
			return false
		}
		addr = "unix:path=" + sock
	}
	conn, err := dbus.Connect(addr)
	if err != nil {
		return false
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var has bool
	err = conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.NameHasOwner", 0, "org.kde.StatusNotifierWatcher").Store(&has)
	return err == nil && has
}
