package safefile

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"
)

// A file written through WriteNew (the token file, an export, a document)
// has an ACL of one entry, the user the test runs as, and inherits none
// from its folder. Wine 8.0 accepts SetNamedSecurityInfo and keeps
// nothing (measured: it reads back its default ACL of SYSTEM, the user and
// Everyone), so under Wine the test says so and skips: it is for Windows.
func TestWriteNewIsOnlyHersOnWindows(t *testing.T) {
	if windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil {
		t.Skip("Wine keeps no ACL of a file: this runs on Windows")
	}
	dir, err := os.MkdirTemp("", "private")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "token")
	defer func() { os.Remove(p); os.Remove(dir) }()
	if err := WriteNew(p, false, func(w io.Writer) error { _, err := w.Write([]byte("tok\n")); return err }); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(p); err != nil || string(b) != "tok\n" {
		t.Fatalf("read back %q %v", b, err)
	}
	sd, err := windows.GetNamedSecurityInfo(p, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		t.Fatal(err)
	}
	control, _, err := sd.Control()
	if err != nil {
		t.Fatal(err)
	}
	if control&windows.SE_DACL_PROTECTED == 0 {
		t.Errorf("the ACL of %s inherits from its folder (control %#x)", p, control)
	}
	dacl, _, err := sd.DACL()
	if err != nil || dacl == nil {
		t.Fatalf("no ACL: %v", err)
	}
	user, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		t.Fatal(err)
	}
	if dacl.AceCount != 1 {
		t.Fatalf("the ACL of %s has %d entries, want 1 (hers)", p, dacl.AceCount)
	}
	var ace *windows.ACCESS_ALLOWED_ACE
	if err := windows.GetAce(dacl, 0, &ace); err != nil {
		t.Fatal(err)
	}
	sid := (*windows.SID)(unsafe.Pointer(&ace.SidStart))
	if ace.Header.AceType != windows.ACCESS_ALLOWED_ACE_TYPE || !sid.Equals(user.User.Sid) {
		t.Fatalf("the one entry is type %d for %s, want an allow for %s", ace.Header.AceType, sid, user.User.Sid)
	}
}
