package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The child half of TestSecondInterruptEndsTheProcess: it installs the
// command line's signal handling, then blocks where the hostile run found
// the console stuck: in openat on a named pipe that nobody opens.
func signalChild(fifo string) {
	ctx, cancel := signalContext()
	defer cancel()
	go func() {
		<-ctx.Done()
		fmt.Println("cancelled")
	}()
	fmt.Println("ready")
	f, err := os.OpenFile(fifo, os.O_WRONLY, 0) // blocks: no reader
	if err == nil {
		f.Close()
	}
	fmt.Println("the open returned")
	os.Exit(0)
}

func TestSecondInterruptEndsTheProcess(t *testing.T) {
	if fifo := os.Getenv("REVIEWER_SIGNAL_CHILD"); fifo != "" {
		signalChild(fifo)
		return
	}
	fifo := filepath.Join(t.TempDir(), "out.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestSecondInterruptEndsTheProcess$")
	cmd.Env = append(os.Environ(), "REVIEWER_SIGNAL_CHILD="+fifo)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	waitFor := func(want string) {
		t.Helper()
		for lines.Scan() {
			if lines.Text() == want {
				return
			}
		}
		t.Fatalf("the child ended before printing %q: %s", want, stderr.String())
	}
	waitFor("ready")
	cmd.Process.Signal(os.Interrupt)
	waitFor("cancelled") // the first Ctrl-C cancels the command's context
	cmd.Process.Signal(os.Interrupt)
	err = cmd.Wait()
	if ctx.Err() != nil {
		t.Fatal("the child was still blocked 60 s after the second Ctrl-C")
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != ExitInterrupted {
		t.Fatalf("exit: %v, want status %d; stderr: %s", err, ExitInterrupted, stderr.String())
	}
	if !strings.Contains(stderr.String(), "interrupted twice") {
		t.Fatalf("stderr: %q", stderr.String())
	}
}

func TestOneInterruptOnlyCancels(t *testing.T) {
	exited := make(chan struct{})
	ctx, cancel := notifyTwice(&strings.Builder{}, func() { close(exited) })
	defer cancel()
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	select {
	case <-ctx.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("SIGINT did not cancel the context")
	}
	select {
	case <-exited:
		t.Fatal("one SIGINT ended the process")
	default:
	}
}
