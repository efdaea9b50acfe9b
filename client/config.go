package client

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/trustscreen/reviewer/internal/safefile"
	"github.com/trustscreen/reviewer/policy"
)

// Secret holds the API token. It prints as [redacted] in every format, so a
// stray %v in a log line or an error message cannot leak it.
type Secret string

func (Secret) String() string                 { return "[redacted]" }
func (Secret) GoString() string               { return "[redacted]" }
func (Secret) MarshalJSON() ([]byte, error)   { return []byte(`"[redacted]"`), nil }
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Reveal returns the token itself, for the Authorization header only.
func (s Secret) Reveal() string { return string(s) }

// Config is every number and address of the client. The environment sets it,
// flags override it, and the defaults are those of the product rules.
type Config struct {
	BaseURL           string        // REVIEWER_API_URL
	Token             Secret        // REVIEWER_API_TOKEN, or the file REVIEWER_API_TOKEN_FILE
	TokenFile         string        // REVIEWER_API_TOKEN_FILE
	Timeout           time.Duration // REVIEWER_TIMEOUT: the cap of one request (30s)
	ConnectTimeout    time.Duration // REVIEWER_CONNECT_TIMEOUT: the cap of opening a connection (5s)
	RetryAttempts     int           // REVIEWER_RETRY_ATTEMPTS: the first try and the retries (2)
	RetrySleep        time.Duration // REVIEWER_RETRY_SLEEP: the wait before the retry (200ms)
	Reserve           time.Duration // REVIEWER_RESERVE: kept back from each attempt to record its outcome (250ms)
	CircuitFailures   int           // REVIEWER_CIRCUIT_FAILURES: consecutive failures that open the circuit (5)
	CircuitOpen       time.Duration // REVIEWER_CIRCUIT_OPEN: how long it stays open (30s)
	MaxBody           int           // REVIEWER_MAX_BODY: the largest answer read, in bytes (8 MiB)
	AllowInsecureHTTP bool          // REVIEWER_ALLOW_INSECURE_HTTP=1: plain http to a host that is not loopback

	// Warnings are what Finish found worth saying but not worth stopping
	// for (a token file that others can read). The command line prints
	// them on stderr; the window can show them.
	Warnings []string `json:"-"`
}

// Ranges of the numbers of the configuration: a value outside its range is
// refused with the range in the message. The bounds keep a typo or a
// hostile environment (REVIEWER_TIMEOUT=9223372036854775807ns) from turning
// into a client that can never finish, or never start, a call.
var (
	TimeoutRange         = DurationRange{policy.ServiceClassifierBudget, 10 * time.Minute} // Min exclusive
	ConnectTimeoutRange  = DurationRange{10 * time.Millisecond, 2 * time.Minute}
	RetrySleepRange      = DurationRange{time.Millisecond, 10 * time.Second}
	ReserveRange         = DurationRange{time.Millisecond, 10 * time.Second}
	CircuitOpenRange     = DurationRange{10 * time.Millisecond, time.Hour}
	RetryAttemptsRange   = IntRange{1, 2} // the first try and the one retry the product allows
	CircuitFailuresRange = IntRange{1, 1000}
	MaxBodyRange         = IntRange{1 << 10, 256 << 20}
)

// DurationRange is an inclusive range of a duration setting.
type DurationRange struct{ Min, Max time.Duration }

func (r DurationRange) check(name string, v time.Duration) string {
	if v < r.Min || v > r.Max {
		return fmt.Sprintf("%s=%v is out of range: it must be between %v and %v", name, v, r.Min, r.Max)
	}
	return ""
}

// IntRange is an inclusive range of a count setting.
type IntRange struct{ Min, Max int }

func (r IntRange) check(name string, v int) string {
	if v < r.Min || v > r.Max {
		return fmt.Sprintf("%s=%d is out of range: it must be between %d and %d", name, v, r.Min, r.Max)
	}
	return ""
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	b := policy.DefaultBudget()
	return Config{
		BaseURL:         "http://127.0.0.1:8001",
		Timeout:         b.RequestCap,
		ConnectTimeout:  b.ConnectCap,
		RetryAttempts:   2,
		RetrySleep:      200 * time.Millisecond,
		Reserve:         b.Reserve,
		CircuitFailures: 5,
		CircuitOpen:     30 * time.Second,
		MaxBody:         8 << 20,
	}
}

// Budget returns the attempt budget of this configuration.
func (c Config) Budget() policy.Budget {
	return policy.Budget{RequestCap: c.Timeout, ConnectCap: c.ConnectTimeout, Reserve: c.Reserve}
}

// ConfigFromEnv reads the configuration from the environment through
// lookup (os.LookupEnv in production). A bad value is an error naming the
// variable.
func ConfigFromEnv(lookup func(string) (string, bool)) (Config, error) {
	c := DefaultConfig()
	str := func(name string, dst *string) {
		if v, ok := lookup(name); ok && v != "" {
			*dst = v
		}
	}
	var errs []string
	dur := func(name string, dst *time.Duration) {
		if v, ok := lookup(name); ok && v != "" {
			d, err := time.ParseDuration(v)
			if err != nil {
				errs = append(errs, fmt.Sprintf("%s=%q is not a Go duration such as 30s or 200ms", name, v))
				return
			}
			*dst = d
		}
	}
	num := func(name string, dst *int) {
		if v, ok := lookup(name); ok && v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				errs = append(errs, fmt.Sprintf("%s=%q is not a whole number", name, v))
				return
			}
			*dst = n
		}
	}
	str("REVIEWER_API_URL", &c.BaseURL)
	str("REVIEWER_API_TOKEN_FILE", &c.TokenFile)
	if v, ok := lookup("REVIEWER_API_TOKEN"); ok {
		tok, err := checkToken("REVIEWER_API_TOKEN", v)
		if err != nil {
			errs = append(errs, err.Error())
		}
		c.Token = tok
	}
	dur("REVIEWER_TIMEOUT", &c.Timeout)
	dur("REVIEWER_CONNECT_TIMEOUT", &c.ConnectTimeout)
	dur("REVIEWER_RETRY_SLEEP", &c.RetrySleep)
	dur("REVIEWER_RESERVE", &c.Reserve)
	dur("REVIEWER_CIRCUIT_OPEN", &c.CircuitOpen)
	num("REVIEWER_RETRY_ATTEMPTS", &c.RetryAttempts)
	num("REVIEWER_CIRCUIT_FAILURES", &c.CircuitFailures)
	num("REVIEWER_MAX_BODY", &c.MaxBody)
	if v, ok := lookup("REVIEWER_ALLOW_INSECURE_HTTP"); ok && v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Sprintf("REVIEWER_ALLOW_INSECURE_HTTP=%q is not 0 or 1", v))
		}
		c.AllowInsecureHTTP = b
	}
	if len(errs) == 0 {
		errs = c.rangeErrors()
	}
	if len(errs) > 0 {
		return c, policy.Errorf(policy.CodeInvalidInput, "%s", strings.Join(errs, "; "))
	}
	return c, nil
}

// RegisterFlags adds flags that override the configuration; their defaults
// are the values already in c. There is no flag for the token itself: a
// command line is visible to every user of the machine.
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.BaseURL, "api", c.BaseURL, "screening API base URL (REVIEWER_API_URL)")
	fs.StringVar(&c.TokenFile, "token-file", c.TokenFile, "file holding the API token (REVIEWER_API_TOKEN_FILE)")
	fs.DurationVar(&c.Timeout, "timeout", c.Timeout, "cap of one request (REVIEWER_TIMEOUT)")
	fs.DurationVar(&c.ConnectTimeout, "connect-timeout", c.ConnectTimeout, "cap of opening a connection (REVIEWER_CONNECT_TIMEOUT)")
	fs.IntVar(&c.RetryAttempts, "retry-attempts", c.RetryAttempts, "attempts when no connection could be made (REVIEWER_RETRY_ATTEMPTS)")
	fs.DurationVar(&c.RetrySleep, "retry-sleep", c.RetrySleep, "wait before the retry (REVIEWER_RETRY_SLEEP)")
	fs.DurationVar(&c.Reserve, "reserve", c.Reserve, "time kept back to record an outcome (REVIEWER_RESERVE)")
	fs.BoolVar(&c.AllowInsecureHTTP, "allow-insecure-http", c.AllowInsecureHTTP, "allow plain http to a host that is not loopback (REVIEWER_ALLOW_INSECURE_HTTP)")
}

// rangeErrors checks every number against its range.
func (c Config) rangeErrors() []string {
	var errs []string
	add := func(msg string) {
		if msg != "" {
			errs = append(errs, msg)
		}
	}
	if c.Timeout <= policy.ServiceClassifierBudget || c.Timeout > TimeoutRange.Max {
		// Below the budget, a slow classifier would look like a network
		// failure (an unknown outcome) instead of the service's
		// CLASSIFIER_TIMEOUT.
		add(fmt.Sprintf("REVIEWER_TIMEOUT=%v is out of range: it must be above the service's %v classifier budget and at most %v",
			c.Timeout, policy.ServiceClassifierBudget, TimeoutRange.Max))
	}
	add(ConnectTimeoutRange.check("REVIEWER_CONNECT_TIMEOUT", c.ConnectTimeout))
	add(RetrySleepRange.check("REVIEWER_RETRY_SLEEP", c.RetrySleep))
	add(ReserveRange.check("REVIEWER_RESERVE", c.Reserve))
	add(CircuitOpenRange.check("REVIEWER_CIRCUIT_OPEN", c.CircuitOpen))
	add(RetryAttemptsRange.check("REVIEWER_RETRY_ATTEMPTS", c.RetryAttempts))
	add(CircuitFailuresRange.check("REVIEWER_CIRCUIT_FAILURES", c.CircuitFailures))
	add(MaxBodyRange.check("REVIEWER_MAX_BODY", c.MaxBody))
	if len(errs) == 0 && c.Reserve >= c.Timeout/2 {
		add(fmt.Sprintf("REVIEWER_RESERVE=%v must be less than half of REVIEWER_TIMEOUT=%v", c.Reserve, c.Timeout))
	}
	return errs
}

// maxTokenFile is the most read of a token file: a token is a line.
const maxTokenFile = 64 << 10

// MinTokenLength is the shortest token the console accepts. A short token
// is easy to guess, and the console takes the token out of every answer
// (redact.go): a short one would also occur by chance in the text around
// it, and redacting it would garble that text or, matched as a whole
// word only, leave it in place.
const MinTokenLength = 16

// CheckToken checks a token typed or piped in (reviewer login, the
// window's sign-in) as the configuration checks one: trimmed, printable
// ASCII with no whitespace inside, at least MinTokenLength long. The
// message names where it came from (from), never the value.
func CheckToken(from, v string) (Secret, error) {
	tok, err := checkToken(from, v)
	if err == nil && tok == "" {
		return "", policy.Errorf(policy.CodeInvalidInput, "%s is empty: paste the API token", from)
	}
	return tok, err
}

// checkToken trims the whitespace around a token (a trailing newline is
// usual) and refuses one that holds anything but printable ASCII: a line
// break inside a token would never authenticate, and would fail as a
// network error, for ever. The message names the variable, never the value.
func checkToken(name, v string) (Secret, error) {
	v = strings.TrimSpace(v)
	for i := 0; i < len(v); i++ {
		if v[i] <= ' ' || v[i] > '~' {
			what := "a character that is not printable ASCII"
			switch v[i] {
			case '\r', '\n':
				what = "a line break"
			case ' ', '\t':
				what = "a space or a tab"
			}
			return "", policy.Errorf(policy.CodeInvalidInput,
				"%s holds %s inside the token; a token is printable ASCII with no whitespace", name, what)
		}
	}
	if v != "" && len(v) < MinTokenLength {
		return "", policy.Errorf(policy.CodeInvalidInput,
			"%s holds a token of %d characters; a token has at least %d: ask for a longer one", name, len(v), MinTokenLength)
	}
	return Secret(v), nil
}

// Finish reads the token file, if any, and checks the values that flags may
// have changed. A token file that others may read is used, with a warning
// in Warnings.
func (c *Config) Finish() error {
	if c.TokenFile != "" {
		f, fi, err := safefile.Open(c.TokenFile)
		if err != nil {
			return policy.Errorf(policy.CodeInvalidInput, "REVIEWER_API_TOKEN_FILE: cannot read %s: %v", c.TokenFile, unwrapPathErr(err))
		}
		b, err := io.ReadAll(io.LimitReader(f, maxTokenFile+1))
		f.Close()
		switch {
		case err != nil:
			return policy.Errorf(policy.CodeInvalidInput, "REVIEWER_API_TOKEN_FILE: cannot read %s: %v", c.TokenFile, unwrapPathErr(err))
		case len(b) > maxTokenFile:
			return policy.Errorf(policy.CodeInvalidInput, "REVIEWER_API_TOKEN_FILE: %s is larger than %s; it should hold one token", c.TokenFile, safefile.Size(maxTokenFile))
		}
		tok, err := checkToken("REVIEWER_API_TOKEN_FILE ("+c.TokenFile+")", string(b))
		if err != nil {
			return err
		}
		c.Token = tok
		if perm := fi.Mode().Perm(); perm&0o077 != 0 {
			c.Warnings = append(c.Warnings, fmt.Sprintf("the token file %s can be read by other users (mode %04o); run: chmod 600 %s",
				c.TokenFile, perm, c.TokenFile))
		}
	}
	if errs := c.rangeErrors(); len(errs) > 0 {
		return policy.Errorf(policy.CodeInvalidInput, "%s", strings.Join(errs, "; "))
	}
	return nil
}

func unwrapPathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
