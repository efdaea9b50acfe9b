package client_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/client"
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
	os.WriteFile(tokFile, []byte("from-file\n"), 0o600)
	c, err := client.ConfigFromEnv(env(map[string]string{
		"REVIEWER_API_URL": "https://api.example", "REVIEWER_TIMEOUT": "45s", "REVIEWER_CONNECT_TIMEOUT": "2s",
		"REVIEWER_RETRY_ATTEMPTS": "1", "REVIEWER_RETRY_SLEEP": "50ms", "REVIEWER_API_TOKEN": "from-env",
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
		c.RetryAttempts != 1 || c.RetrySleep != 50*time.Millisecond || c.Token.Reveal() != "from-file" {
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
