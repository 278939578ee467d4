package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/spf13/pflag"
	"k8s.io/klog/v2"

	"github.com/informtop/informtop/agent/shared/waitfor"
)

// --log-file with -v 4 records client-go's reflector: when the demo's
// server drops the watch and then refuses connections, the broken watch
// and the failed re-watch are in the file, as client-go logs them, and
// nothing reaches the process's stderr (the dashboard's terminal).
func TestLogFileRecordsWatchErrors(t *testing.T) {
	t.Setenv("KUBECONFIG", t.TempDir()+"/none")
	path := filepath.Join(t.TempDir(), "client-go.log")
	terminal, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	realStderr := os.Stderr
	os.Stderr = terminal
	defer func() { os.Stderr = realStderr }()
	o := newOptions()
	fs := pflag.NewFlagSet("informtop", pflag.ContinueOnError)
	o.addFlags(fs)
	if err := fs.Parse([]string{"--demo", "--scenario", "resync", "--log-file", path, "-v", "4"}); err != nil {
		t.Fatal(err)
	}
	if err := o.validate(fs); err != nil {
		t.Fatal(err)
	}
	closeLog, err := routeClientLogs(o.logFile, o.verbosity)
	if err != nil {
		t.Fatal(err)
	}
	defer closeLog()
	src, err := chooseSource(context.Background(), o, fs)
	if err != nil {
		t.Fatal(err)
	}
	faults := src.demo
	if faults == nil || src.Controls().Faults == nil {
		t.Fatal("the demo offers no watch faults")
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { src.Run(ctx) })
	defer wg.Wait()
	defer cancel()
	if err := src.WaitSynced(ctx); err != nil {
		t.Fatal(err)
	}
	// Drop a watch that is open: dropped while the reflector is still
	// opening it, there is no stream to end with an error.
	waitfor.True(t, "the watch to open", func() bool {
		f := src.Pull(0, 0)
		return len(f.Snapshots) > 0 && f.Snapshots[0].Reflector.WatchOpen
	})
	if err := faults.DropWatch(); err != nil {
		t.Fatal(err)
	}
	waitfor.True(t, "client-go to log the broken watch", func() bool {
		b, _ := os.ReadFile(path)
		return strings.Contains(string(b), `"Warning: watch ended with error"`)
	})
	faults.SetServerAvailable(false)
	// client-go's own words: the broken stream (V0), the refused
	// re-list (the demo streams it, as v0.37 does against v1.37, so
	// client-go says the watch-list failed and backs off), and a V3 line
	// that only -v 3 or more records.
	wants := []string{`"Warning: watch ended with error"`, `"watch-list failed - backing off"`, "connection refused", `"Listing and watching"`}
	waitfor.Seen(t, "client-go's words in the log file", func() (bool, string) {
		b, _ := os.ReadFile(path)
		log := string(b)
		missing := slices.DeleteFunc(slices.Clone(wants), func(w string) bool { return strings.Contains(log, w) })
		return len(missing) == 0, fmt.Sprintf("the log file lacks %q:\n%s", missing, log)
	})
	cancel()
	wg.Wait()
	if b, _ := os.ReadFile(terminal.Name()); len(b) > 0 {
		t.Errorf("client-go wrote to stderr while logging to --log-file:\n%s", b)
	}
}

// client-go logs response bodies at -v 8 through klog.FromContext: the log
// file gets them redacted, each line still naming client-go's own caller,
// and the file is the user's alone.
func TestLogFileRedactsBodies(t *testing.T) {
	path := filepath.Join(t.TempDir(), "client-go.log")
	closeLog, err := routeClientLogs(path, 9)
	if err != nil {
		t.Fatal(err)
	}
	body := `{"kind":"SecretList","apiVersion":"v1","items":[{"metadata":{"name":"db"},"data":{"password":"aHVudGVyMg=="}}]}`
	klog.FromContext(context.Background()).V(8).Info("Response Body", "body", body)
	klog.FromContext(context.Background()).V(8).Info("Response Body", "body", body[:60]+" [truncated 40 chars]")
	klog.FromContext(context.Background()).V(8).Info("Request Body", "body", []byte(`{"kind":"ConfigMap","data":{"k":"visible"}}`))
	closeLog()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	log := string(b)
	if strings.Contains(log, "aHVudGVyMg") || !strings.Contains(log, "redacted, 7 bytes") || !strings.Contains(log, "visible") {
		t.Fatalf("the log should carry bodies with Secret values redacted, others as they are:\n%s", log)
	}
	if !strings.Contains(log, "logs_test.go:") || strings.Contains(log, "logredact.go") {
		t.Fatalf("each line should name the code that logged it:\n%s", log)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("the log file is %v, want -rw-------", fi.Mode().Perm())
	}
}
