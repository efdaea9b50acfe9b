package safefile

import (
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

// Private makes f a file only the reviewer can read and write, the
// Windows way: a mode means nothing there (os.File.Chmod only sets the
// read-only attribute), so f gets a protected ACL with one entry, full
// access for the user the console runs as, and nothing inherited from its
// folder (not even SYSTEM's or the Administrators' entries). It is set by
// name: the handle os.CreateTemp opened may not change its own ACL.
func Private(f *os.File) error {
	tok := windows.GetCurrentProcessToken()
	user, err := tok.GetTokenUser()
	if err != nil {
		return fmt.Errorf("who the console runs as: %w", err)
	}
	acl, err := windows.ACLFromEntries([]windows.EXPLICIT_ACCESS{{
		AccessPermissions: windows.GENERIC_ALL,
		AccessMode:        windows.GRANT_ACCESS,
		Inheritance:       windows.NO_INHERITANCE,
		Trustee: windows.TRUSTEE{
			TrusteeForm:  windows.TRUSTEE_IS_SID,
			TrusteeType:  windows.TRUSTEE_IS_USER,
			TrusteeValue: windows.TrusteeValueFromSID(user.User.Sid),
		},
	}}, nil)
	if err != nil {
		return fmt.Errorf("an ACL for %s: %w", f.Name(), err)
	}
	err = windows.SetNamedSecurityInfo(f.Name(), windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, acl, nil)
	if err != nil {
		return fmt.Errorf("making %s private: %w", f.Name(), err)
	}
	return nil
}
