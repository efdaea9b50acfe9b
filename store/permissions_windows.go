package store

// CheckPermissions has nothing to say on Windows, where a file's privacy
// is its ACL and not a mode: Go reports every writable file as 0666 and
// every folder as 0777 whatever its ACL, and os.Chmod only sets the
// read-only attribute, so the Unix check (permissions.go) would warn at
// every start and change nothing. The cache lives in the reviewer's own
// profile (%AppData%\trustscreen-reviewer), whose inherited ACL lets only
// her, SYSTEM and the Administrators in; a token file the console writes
// gets an ACL of her alone (internal/safefile.Private).
func CheckPermissions(path string) (warnings []string, err error) { return nil, nil }
