package client_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestConfigDefaults(t *testing.T) {
	c, err := client.ConfigFromEnv(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.Timeout != 30*time.Second || c.ConnectTimeout != 5*time.Second || c.RetryAttempts != 2 ||
		c.RetrySleep != 200*time.Millisecond || c.Reserve != 250*time.Millisecond || c.CircuitFailures != 5 ||
		c.CircuitOpen != 30*time.Second || c.MaxBody != 8<<20 || c.AllowInsecureHTTP {
		t.Fatalf("defaults %+v", c)
	}
}

func TestConfigFromEnvAndFlags(t *testing.T) {
	dir := t.TempDir()
	tokFile := filepath.Join(dir, "token")
	os.WriteFile(tokFile, []byte("from-file-0123456789\n"), 0o600)
	c, err := client.ConfigFromEnv(env(map[string]string{
		"REVIEWER_API_URL": "https://api.example", "REVIEWER_TIMEOUT": "45s", "REVIEWER_CONNECT_TIMEOUT": "2s",
		"REVIEWER_RETRY_ATTEMPTS": "1", "REVIEWER_RETRY_SLEEP": "50ms", "REVIEWER_API_TOKEN": "from-env-0123456789",
	}))
	if err != nil {
		t.Fatal(err)
	}
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	c.RegisterFlags(fs)
	if err := fs.Parse([]string{"--timeout", "40s", "--token-file", tokFile}); err != nil {
		t.Fatal(err)
	}
	if err := c.Finish(); err != nil {
		t.Fatal(err)
	}
	if c.BaseURL != "https://api.example" || c.Timeout != 40*time.Second || c.ConnectTimeout != 2*time.Second ||
		c.RetryAttempts != 1 || c.RetrySleep != 50*time.Millisecond || c.Token.Reveal() != "from-file-0123456789" {
		t.Fatalf("%+v", c)
	}
}

func TestConfigBadValuesNameTheVariable(t *testing.T) {
	for name, val := range map[string]string{
		"REVIEWER_TIMEOUT": "30", "REVIEWER_CONNECT_TIMEOUT": "-1s", "REVIEWER_RETRY_SLEEP": "soon",
		"REVIEWER_RETRY_ATTEMPTS": "0", "REVIEWER_ALLOW_INSECURE_HTTP": "maybe",
	} {
		_, err := client.ConfigFromEnv(env(map[string]string{name: val}))
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%s: %v", name, val, err)
		}
	}
	c := client.DefaultConfig()
	c.Timeout = 8 * time.Second
	if err := c.Finish(); err == nil || !strings.Contains(err.Error(), "REVIEWER_TIMEOUT") || !strings.Contains(err.Error(), "classifier") {
		t.Errorf("a cap below the classifier budget: %v", err)
	}
	c = client.DefaultConfig()
	c.TokenFile = filepath.Join(t.TempDir(), "missing")
	if err := c.Finish(); err == nil || !strings.Contains(err.Error(), "REVIEWER_API_TOKEN_FILE") {
		t.Errorf("missing token file: %v", err)
	}
}

func TestConfigRefusesATokenWithWhitespaceInsideAndNeverPrintsIt(t *testing.T) {
	for _, tok := range []string{"abc\r\ndef", "abc def", "abc\tdef", "abc\x00def", "abcédef", "abc\x7fdef"} {
		_, err := client.ConfigFromEnv(env(map[string]string{"REVIEWER_API_TOKEN": tok}))
		if err == nil || !strings.Contains(err.Error(), "REVIEWER_API_TOKEN") || strings.Contains(err.Error(), "abc") {
			t.Errorf("%q: %v", tok, err)
		}
		dir := t.TempDir()
		file := filepath.Join(dir, "token")
		os.WriteFile(file, []byte(tok+"\n"), 0o600)
		c := client.DefaultConfig()
		c.TokenFile = file
		if err := c.Finish(); err == nil || !strings.Contains(err.Error(), "REVIEWER_API_TOKEN_FILE") || strings.Contains(err.Error(), "abc") {
			t.Errorf("file %q: %v", tok, err)
		}
	}
	// Whitespace around it is trimmed, as a shell's $(cat file) leaves it.
	c, err := client.ConfigFromEnv(env(map[string]string{"REVIEWER_API_TOKEN": "  tok-1234567890abcdef\r\n"}))
	if err != nil || c.Token.Reveal() != "tok-1234567890abcdef" {
		t.Fatalf("%v %q", err, c.Token.Reveal())
	}
}

func TestConfigBoundsEveryNumber(t *testing.T) {
	for name, val := range map[string]string{
		"REVIEWER_TIMEOUT": "9223372036854775807ns", "REVIEWER_CONNECT_TIMEOUT": "1ns", "REVIEWER_RETRY_SLEEP": "1000h",
		"REVIEWER_RESERVE": "0s", "REVIEWER_CIRCUIT_OPEN": "876000h", "REVIEWER_RETRY_ATTEMPTS": "1000000",
		"REVIEWER_CIRCUIT_FAILURES": "0", "REVIEWER_MAX_BODY": "99999999999",
	} {
		_, err := client.ConfigFromEnv(env(map[string]string{name: val}))
		if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("%s=%s: %v", name, val, err)
		}
	}
	// A flag is held to the same range.
	c := client.DefaultConfig()
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	c.RegisterFlags(fs)
	fs.Parse([]string{"--timeout", "9999h"})
	if err := c.Finish(); err == nil || !strings.Contains(err.Error(), "10m0s") {
		t.Errorf("--timeout 9999h: %v", err)
	}
	// The bounds themselves are accepted.
	_, err := client.ConfigFromEnv(env(map[string]string{"REVIEWER_TIMEOUT": "10m", "REVIEWER_RETRY_ATTEMPTS": "2",
		"REVIEWER_CONNECT_TIMEOUT": "10ms", "REVIEWER_MAX_BODY": "1024"}))
	if err != nil {
		t.Errorf("bounds refused: %v", err)
	}
}

func TestTokenFileReadableByOthersWarns(t *testing.T) {
	file := filepath.Join(t.TempDir(), "token")
	os.WriteFile(file, []byte("tok-1234567890abcdef\n"), 0o600)
	c := client.DefaultConfig()
	c.TokenFile = file
	if err := c.Finish(); err != nil || len(c.Warnings) != 0 {
		t.Fatalf("0600: %v %v", err, c.Warnings)
	}
	os.Chmod(file, 0o644)
	c = client.DefaultConfig()
	c.TokenFile = file
	if err := c.Finish(); err != nil || len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "chmod 600") ||
		strings.Contains(c.Warnings[0], "tok-1234567890abcdef") {
		t.Fatalf("0644: %v %v", err, c.Warnings)
	}
	// A named pipe is refused, not opened (it would block).
	fifo := filepath.Join(t.TempDir(), "token.fifo")
	syscall.Mkfifo(fifo, 0o600)
	c = client.DefaultConfig()
	c.TokenFile = fifo
	if err := c.Finish(); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Fatalf("fifo: %v", err)
	}
}

// A token shorter than 16 characters is refused at start, from the
// environment and from a file alike, in words that name the variable and
// the length, never the token.
func TestConfigRefusesAShortTokenInWords(t *testing.T) {
	for _, tok := range []string{"x", "demo-token-ana", "abcdefghijklmno"} {
		_, err := client.ConfigFromEnv(env(map[string]string{"REVIEWER_API_TOKEN": tok}))
		want := fmt.Sprintf("REVIEWER_API_TOKEN holds a token of %d characters; a token has at least 16", len(tok))
		if err == nil {
			t.Fatalf("%d characters: accepted", len(tok))
		}
		named := len(tok) > 3 && strings.Contains(err.Error(), tok) // "x" is in many words
		if !strings.Contains(err.Error(), want) || named ||
			policy.ErrorCode(err) != policy.CodeInvalidInput {
			t.Errorf("%d characters: %v", len(tok), err)
		}
		file := filepath.Join(t.TempDir(), "token")
		os.WriteFile(file, []byte(tok+"\n"), 0o600)
		c := client.DefaultConfig()
		c.TokenFile = file
		if err := c.Finish(); err == nil || !strings.Contains(err.Error(), "REVIEWER_API_TOKEN_FILE") ||
			!strings.Contains(err.Error(), "at least 16") || (len(tok) > 3 && strings.Contains(err.Error(), tok)) {
			t.Errorf("file, %d characters: %v", len(tok), err)
		}
	}
	c, err := client.ConfigFromEnv(env(map[string]string{"REVIEWER_API_TOKEN": "abcdefghijklmnop"}))
	if err != nil || c.Token.Reveal() != "abcdefghijklmnop" {
		t.Fatalf("16 characters: %v", err)
	}
}
