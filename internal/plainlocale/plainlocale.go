// Package plainlocale fixes a locale that Fyne's translations cannot parse
// before Fyne reads it. Fyne's lang package parses LC_ALL / LC_MESSAGES /
// LANG in its init, and a value such as "C.UTF-8" (Debian's default in
// containers) makes it log three lines of errors to stderr on every run,
// even for a command-line command that opens no window. The console's
// text is English only, so such a locale is replaced by en_US.UTF-8 for
// this process. Go's own code does not use the locale.
//
// It must be imported (blank) by main. It has no imports outside the
// standard library, so Go initialises it before fyne.io/fyne/v2/lang,
// whose imports (golang.org/x/text) sort after this package's path.
package plainlocale

import (
	"os"
	"strings"
)

func init() { fix(os.Getenv, os.Setenv) }

// fix replaces the first locale variable that is set, when it is a C or
// POSIX locale with an encoding, which Fyne cannot parse.
func fix(getenv func(string) string, setenv func(string, string) error) {
	for _, name := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		v := getenv(name)
		if v == "" {
			continue
		}
		if strings.HasPrefix(v, "C.") || strings.HasPrefix(v, "POSIX.") {
			_ = setenv(name, "en_US.UTF-8")
		}
		return
	}
}
