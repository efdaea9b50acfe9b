package client

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

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
			if err != nil || d <= 0 {
				errs = append(errs, fmt.Sprintf("%s=%q is not a positive Go duration such as 30s or 200ms", name, v))
				return
			}
			*dst = d
		}
	}
	num := func(name string, dst *int, min int) {
		if v, ok := lookup(name); ok && v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < min {
				errs = append(errs, fmt.Sprintf("%s=%q is not a whole number of at least %d", name, v, min))
				return
			}
			*dst = n
		}
	}
	str("REVIEWER_API_URL", &c.BaseURL)
	str("REVIEWER_API_TOKEN_FILE", &c.TokenFile)
	if v, ok := lookup("REVIEWER_API_TOKEN"); ok {
		c.Token = Secret(strings.TrimSpace(v))
	}
	dur("REVIEWER_TIMEOUT", &c.Timeout)
	dur("REVIEWER_CONNECT_TIMEOUT", &c.ConnectTimeout)
	dur("REVIEWER_RETRY_SLEEP", &c.RetrySleep)
	dur("REVIEWER_RESERVE", &c.Reserve)
	dur("REVIEWER_CIRCUIT_OPEN", &c.CircuitOpen)
	num("REVIEWER_RETRY_ATTEMPTS", &c.RetryAttempts, 1)
	num("REVIEWER_CIRCUIT_FAILURES", &c.CircuitFailures, 1)
	num("REVIEWER_MAX_BODY", &c.MaxBody, 1024)
	if v, ok := lookup("REVIEWER_ALLOW_INSECURE_HTTP"); ok && v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Sprintf("REVIEWER_ALLOW_INSECURE_HTTP=%q is not 0 or 1", v))
		}
		c.AllowInsecureHTTP = b
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

// Finish reads the token file, if any, and checks the values that flags may
// have changed.
func (c *Config) Finish() error {
	if c.TokenFile != "" {
		b, err := os.ReadFile(c.TokenFile)
		if err != nil {
			return policy.Errorf(policy.CodeInvalidInput, "REVIEWER_API_TOKEN_FILE: cannot read %s: %v", c.TokenFile, unwrapPathErr(err))
		}
		c.Token = Secret(strings.TrimSpace(string(b)))
	}
	switch {
	case c.Timeout <= policy.ServiceClassifierBudget:
		// Below it, a slow classifier would look like a network failure
		// (an unknown outcome) instead of the service's CLASSIFIER_TIMEOUT.
		return policy.Errorf(policy.CodeInvalidInput, "REVIEWER_TIMEOUT=%v must be above the service's %v classifier budget",
			c.Timeout, policy.ServiceClassifierBudget)
	case c.ConnectTimeout <= 0:
		return policy.Errorf(policy.CodeInvalidInput, "REVIEWER_CONNECT_TIMEOUT must be positive")
	case c.RetryAttempts < 1:
		return policy.Errorf(policy.CodeInvalidInput, "REVIEWER_RETRY_ATTEMPTS must be at least 1")
	case c.RetrySleep < 0 || c.Reserve < 0:
		return policy.Errorf(policy.CodeInvalidInput, "REVIEWER_RETRY_SLEEP and REVIEWER_RESERVE must not be negative")
	}
	return nil
}

func unwrapPathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
