package cli_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/screenapi"
	"github.com/trustscreen/reviewer/store"
)

// wantWithin is want, failing (instead of hanging the suite) when the
// command has not returned after d: the bugs it guards against are hangs.
func (h *harness) wantWithin(d time.Duration, code int, args ...string) (string, string) {
	h.t.Helper()
	type res struct{ out, errs string }
	ch := make(chan res, 1)
	go func() {
		got, out, errs := h.run(args...)
		if got != code {
			out = "EXIT " + string(rune('0'+got)) + "\n" + out
		}
		ch <- res{out, errs}
	}()
	select {
	case r := <-ch:
		if strings.HasPrefix(r.out, "EXIT ") {
			h.t.Fatalf("reviewer %s: %s, want exit %d\nstderr: %s", strings.Join(args, " "), strings.SplitN(r.out, "\n", 2)[0], code, r.errs)
		}
		if code != 0 && strings.Count(strings.TrimSpace(r.errs), "\n") > 0 {
			h.t.Fatalf("stderr is more than one line: %q", r.errs)
		}
		return r.out, r.errs
	case <-time.After(d):
		h.t.Fatalf("reviewer %s: still running after %v", strings.Join(args, " "), d)
	}
	return "", ""
}

func TestReplaceRefusesBadFilesWithoutReadingOrEchoingThem(t *testing.T) {
	h := newHarness(t)
	h.want(0, "sync")
	item := h.srv.FindCode("DECODE_FAILED")

	fifo := filepath.Join(h.dir, "scan.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	_, errs := h.wantWithin(30*time.Second, 3, "replace", item, fifo)
	if !strings.Contains(errs, "named pipe") {
		t.Fatalf("fifo: %s", errs)
	}
	_, errs = h.wantWithin(30*time.Second, 3, "replace", item, "/dev/zero")
	if !strings.Contains(errs, "character device") {
		t.Fatalf("/dev/zero: %s", errs)
	}
	_, errs = h.want(3, "replace", item, h.dir)
	if !strings.Contains(errs, "directory") {
		t.Fatalf("directory: %s", errs)
	}
	// A file that grows past the limit is refused at 10 MiB + 1 byte.
	big := filepath.Join(h.dir, "big.pdf")
	os.WriteFile(big, append([]byte("%PDF-1.7\n"), make([]byte, policy.MaxFileSize)...), 0o600)
	_, errs = h.want(3, "replace", item, big)
	if !strings.Contains(errs, "10 MiB") {
		t.Fatalf("big: %s", errs)
	}
	// A link to a secret: its kind in words, never its bytes.
	secret := filepath.Join(h.dir, "shadow")
	os.WriteFile(secret, []byte("root:$6$salt$hash:19000:0:99999:7:::\n"), 0o600)
	link := filepath.Join(h.dir, "scan.jpg")
	os.Symlink(secret, link)
	_, errs = h.want(3, "replace", item, link)
	if !strings.Contains(errs, "plain text") || strings.Contains(errs, "72 6f 6f 74") || strings.Contains(errs, "root") {
		t.Fatalf("secret: %s", errs)
	}
	bin := filepath.Join(h.dir, "blob.jpg")
	os.WriteFile(bin, []byte{0, 1, 2, 3, 0xfe, 0xff, 0x80, 0x81}, 0o600)
	_, errs = h.want(3, "replace", item, bin)
	if !strings.Contains(errs, "unknown binary data") || strings.Contains(errs, "00 01 02") {
		t.Fatalf("binary: %s", errs)
	}
	if n := h.srv.Arrivals(screenapi.EPReplacement); n != 0 {
		t.Fatalf("%d replacements reached the API", n)
	}
}

func TestSyncFailureIsAFailedRead(t *testing.T) {
	h := newHarness(t)
	check := func(what string) {
		t.Helper()
		_, errs := h.want(7, "sync")
		if strings.Contains(errs, "flush") || strings.Contains(errs, "same key") ||
			!strings.Contains(errs, "run 'reviewer sync' again") {
			t.Fatalf("%s: %s", what, errs)
		}
	}
	h.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultReset, Endpoint: screenapi.EPBatches, Times: 1})
	check("reset")
	h.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultTruncated, Endpoint: screenapi.EPBatches, Times: 1})
	check("truncated")
	h.srv.Refuse()
	check("unreachable")
	h.srv.Accept()
	h.want(0, "sync")
	out, _ := h.want(0, "help")
	if !strings.Contains(out, "7 a sync") {
		t.Fatalf("help does not document exit 7: %s", out)
	}
}

// hostileCache writes into the cache what a hostile service could send:
// control characters and formula starts in ids, names and messages, and an
// id of 10,000 characters.
func hostileCache(t *testing.T, path string) (ids []string) {
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Now().UTC().Truncate(time.Millisecond)
	long := strings.Repeat("L", 10000)
	ids = []string{"@SUM(A1)", "itm\x1b]0;owned\x07\x1b[2J", "itm\nfake line", long, "-1+1", "\u202eevil"}
	b := policy.Batch{ID: "=2+2", CustomerRef: "+cmd|' /C calc'!A0", CreatedAt: now, UpdatedAt: now}
	for _, id := range ids {
		b.Items = append(b.Items, policy.Item{ID: id, BatchID: b.ID, Kind: "document", FileName: "\rname\x1b[31m.jpg",
			MediaType: "image/jpeg", SizeBytes: 10, Status: policy.StatusError, ErrorCode: policy.CodeDecodeFailed,
			ReportedCode: "DECODE_FAILED", ErrorMessage: "bad\x1b[8m hidden\r\nline", UpdatedAt: now})
	}
	if _, err := db.Sync.ApplyPage(context.Background(), []policy.Batch{b}); err != nil {
		t.Fatal(err)
	}
	return ids
}

func checkPrintable(t *testing.T, what, s string) {
	t.Helper()
	for i, r := range s {
		if (r < 0x20 && r != '\n') || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u202e' {
			t.Fatalf("%s prints %U raw: ...%q...", what, r, s[max(0, i-60):min(len(s), i+60)])
		}
	}
	for _, line := range strings.Split(s, "\n") {
		if len(line) > 2000 {
			t.Fatalf("%s prints a line of %d bytes", what, len(line))
		}
	}
}

func TestServiceTextIsEscapedForPeopleAndExactInJSON(t *testing.T) {
	h := newHarness(t)
	ids := hostileCache(t, h.env["REVIEWER_DB"])
	out, _ := h.want(0, "items", "--batch", "=2+2")
	checkPrintable(t, "items", out)
	if n := strings.Count(out, "\n"); n != len(ids)+1 {
		t.Fatalf("items: %d lines for %d items:\n%s", n, len(ids), out)
	}
	if !strings.Contains(out, `itm\x1b]0;owned\x07`) || !strings.Contains(out, `\u202eevil`) || !strings.Contains(out, "(10000 chars)") {
		t.Fatalf("items: escapes not shown:\n%s", out)
	}
	for _, id := range ids {
		out, _ := h.want(0, "item", "--", id)
		checkPrintable(t, "item", out)
		if strings.Contains(out, "fake line\n") {
			t.Fatalf("item: %s", out)
		}
	}
	// An error line names the id escaped, on one line.
	_, errs := h.want(1, "item", "itm_\x1b[2Jnope\nsecond")
	checkPrintable(t, "an error line", errs)
	// A 10,000-character id is cut; the rest of the sentence stays.
	_, errs = h.want(1, "item", strings.Repeat("A", 10000))
	if len(errs) > 1500 || !strings.Contains(errs, "(10000 chars)") || !strings.Contains(errs, "sync") {
		t.Fatalf("long id: %q", errs)
	}
	// JSON keeps the exact values.
	out, _ = h.want(0, "items", "--batch", "=2+2", "--json")
	for _, id := range ids[:3] {
		if !strings.Contains(out, strings.NewReplacer("\x1b", `\u001b`, "\x07", `\u0007`, "\n", `\n`).Replace(id)) {
			t.Fatalf("JSON lost %q", id)
		}
	}
	if !strings.Contains(out, ids[3]) {
		t.Fatal("JSON cut the long id")
	}
}

func TestExportNeutralisesFormulasAndNeverClobbers(t *testing.T) {
	h := newHarness(t)
	ids := hostileCache(t, h.env["REVIEWER_DB"])
	target := filepath.Join(h.dir, "out.csv")
	h.want(0, "export", "--csv", target)
	fi, err := os.Stat(target)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("export file: %v %v", fi, err)
	}
	f, _ := os.Open(target)
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(recs) != len(ids)+1 {
		t.Fatalf("csv: %d records, %v", len(recs), err)
	}
	for _, rec := range recs[1:] {
		for _, c := range rec {
			if c != "" && strings.ContainsRune("=+-@\t\r", []rune(strings.TrimLeft(c, " "))[0]) {
				t.Fatalf("a cell a spreadsheet would run: %q in %q", c, rec)
			}
		}
		if rec[0] != "'=2+2" {
			t.Fatalf("batch id %q", rec[0])
		}
	}
	// No raw control character but newline, nor bidi control, in the
	// file: cat on it must not drive the terminal.
	raw, _ := os.ReadFile(target)
	for _, r := range strings.ReplaceAll(string(raw), "\r\n", "\n") {
		if (r < 0x20 && r != '\n') || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u202e' {
			t.Fatalf("the export holds %U raw", r)
		}
	}
	if !strings.Contains(string(raw), "itm]0;owned[2J") {
		t.Fatalf("the export lost the text around the stripped characters:\n%s", raw)
	}

	// An existing file is kept without --force.
	os.WriteFile(target, []byte("keep me"), 0o644)
	_, errs := h.want(3, "export", "--csv", target)
	if !strings.Contains(errs, "--force") {
		t.Fatalf("existing: %s", errs)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep me" {
		t.Fatalf("overwritten without --force: %q", b)
	}
	h.want(0, "export", "--csv", target, "--force")
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Fatalf("--force kept mode %v", fi.Mode())
	}
	// A symbolic link is never followed.
	victim := filepath.Join(h.dir, "victim.txt")
	os.WriteFile(victim, []byte("precious"), 0o644)
	link := filepath.Join(h.dir, "link.csv")
	os.Symlink(victim, link)
	h.want(3, "export", "--csv", link, "--force")
	if b, _ := os.ReadFile(victim); !bytes.Equal(b, []byte("precious")) {
		t.Fatalf("the link's target was written: %q", b)
	}
	// A FIFO is refused, not opened.
	fifo := filepath.Join(h.dir, "out.fifo")
	syscall.Mkfifo(fifo, 0o600)
	_, errs = h.wantWithin(30*time.Second, 3, "export", "--csv", fifo, "--force")
	if !strings.Contains(errs, "named pipe") {
		t.Fatalf("fifo: %s", errs)
	}
}

func TestBadConfigurationStopsBeforeAnyCall(t *testing.T) {
	h := newHarness(t)
	h.want(0, "sync")
	item := h.srv.FindCode("CLASSIFIER_TIMEOUT")
	h.env["REVIEWER_API_TOKEN"] = "cli-test\r\nX-Evil: 1"
	_, errs := h.want(2, "resubmit", item)
	if !strings.Contains(errs, "REVIEWER_API_TOKEN") || strings.Contains(errs, "cli-test") || strings.Contains(errs, "Evil") {
		t.Fatalf("token: %s", errs)
	}
	h.env["REVIEWER_API_TOKEN"] = token
	h.env["REVIEWER_TIMEOUT"] = "9223372036854775807ns"
	_, errs = h.want(2, "resubmit", item)
	if !strings.Contains(errs, "REVIEWER_TIMEOUT") || !strings.Contains(errs, "10m0s") {
		t.Fatalf("timeout: %s", errs)
	}
	if h.srv.Arrivals(screenapi.EPResubmit) != 0 {
		t.Fatal("a call was made on a bad configuration")
	}
	delete(h.env, "REVIEWER_TIMEOUT")
	if out, _ := h.want(0, "outbox", "--json"); strings.TrimSpace(out) != "[]" {
		t.Fatalf("an action was queued on a bad configuration: %s", out)
	}

	// A token file others can read works, with a warning.
	delete(h.env, "REVIEWER_API_TOKEN")
	file := filepath.Join(h.dir, "token")
	os.WriteFile(file, []byte(token+"\n"), 0o644)
	h.env["REVIEWER_API_TOKEN_FILE"] = file
	_, errs = h.want(0, "resubmit", item)
	if !strings.Contains(errs, "warning") || !strings.Contains(errs, "chmod 600") {
		t.Fatalf("no warning for a token file at 0644: %q", errs)
	}
}

func TestWindowIsToldOfATokenFileOthersCanRead(t *testing.T) {
	h := newHarness(t)
	delete(h.env, "REVIEWER_API_TOKEN")
	file := filepath.Join(h.dir, "token")
	os.WriteFile(file, []byte(token+"\n"), 0o644)
	h.env["REVIEWER_API_TOKEN_FILE"] = file
	got, errs := h.window(0)
	if len(got.Config.Warnings) != 1 || !strings.Contains(got.TokenSource, "chmod 600") || strings.Contains(got.TokenSource, token) {
		t.Fatalf("the window was not told: %q %q", got.Config.Warnings, got.TokenSource)
	}
	if !strings.Contains(errs, "chmod 600") {
		t.Fatalf("stderr: %q", errs)
	}
}
