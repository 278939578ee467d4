package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/informtop/informtop/agent/source"

	"github.com/informtop/informtop/agent/source/sourcetest"
	"github.com/informtop/informtop/agent/verify"
)

// verifyAnswers is a synced cluster source whose Verify answers per
// informer, as a real one does when one LIST fails and another succeeds.
type verifyAnswers struct {
	*sourcetest.Cluster
	answers map[string]verifyAnswer
}

type verifyAnswer struct {
	res verify.Result
	err error
}

func (v verifyAnswers) Verify(_ context.Context, informer string) (verify.Result, error) {
	a := v.answers[informer]
	return a.res, a.err
}

func (v verifyAnswers) Controls() source.Controls {
	c := v.Cluster.Controls()
	c.Verifier = v
	return c
}

func syncedCluster(names ...string) *sourcetest.Cluster {
	var snaps []source.Informer
	for _, n := range names {
		snaps = append(snaps, source.Informer{Name: n, Resource: n, Started: true, Synced: true, LastSyncResourceVersion: "5573"})
	}
	return sourcetest.NewCluster(sourcetest.New(sourcetest.Config{Kind: "kube", Frames: [][]source.Informer{snaps}}), nil)
}

func verifyOptions() *options {
	o := newOptions()
	o.once, o.verify, o.timeout = true, true, 5*time.Second
	return o
}

// --once --verify that could not compare a cache exits 4, not 0: a CI gate
// must not pass on a check that was not made. stderr names the informer,
// why, and what to do.
func TestOnceVerifyCouldNotVerifyExits4(t *testing.T) {
	src := sourcetest.NewVerifying(syncedCluster("pods"))
	src.SetVerify(verify.Result{}, errors.New("listing at RV 5573 failed: dial tcp 10.0.0.1:6443: connect: connection refused"))
	var out, errOut bytes.Buffer
	if code := runOnce(context.Background(), src, verifyOptions(), &out, &errOut); code != 4 {
		t.Fatalf("exit %d, want 4; stderr %q", code, errOut.String())
	}
	want := "informtop: pods: could not verify: listing at RV 5573 failed: dial tcp 10.0.0.1:6443: connect: connection refused. " +
		"Its cache was not compared with the server, so this run checked nothing for it (exit 4): fix what the error says"
	if !strings.Contains(errOut.String(), want) {
		t.Fatalf("stderr %q lacks %q", errOut.String(), want)
	}
	if !strings.Contains(out.String(), "verify: could not verify: listing at RV 5573 failed") {
		t.Fatalf("the report does not say it could not verify:\n%s", out.String())
	}
}

// A difference found outranks a check not made (3 before 4), and stderr
// names both; a comparison cut by --timeout says to raise it.
func TestOnceVerifyDiffersOutranksUnverified(t *testing.T) {
	src := verifyAnswers{Cluster: syncedCluster("configmaps", "pods"), answers: map[string]verifyAnswer{
		"configmaps": {err: fmt.Errorf("listing at RV 5573: %w", context.DeadlineExceeded)},
		"pods":       {res: verify.Result{ResourceVersion: "5573", Objects: 3, Missing: []string{"default/web-1"}, MissingCount: 1}},
	}}
	var out, errOut bytes.Buffer
	if code := runOnce(context.Background(), src, verifyOptions(), &out, &errOut); code != 3 {
		t.Fatalf("exit %d, want 3; stderr %q", code, errOut.String())
	}
	for _, want := range []string{
		"informtop: pods: cache differs from the server at RV 5573: 1 missing (default/web-1)",
		"informtop: configmaps: could not verify: listing at RV 5573: context deadline exceeded.",
		"raise --timeout and run again",
	} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr %q lacks %q", errOut.String(), want)
		}
	}

	// Without the difference, the check not made decides.
	src.answers["pods"] = verifyAnswer{res: verify.Result{Equal: true, ResourceVersion: "5573", Objects: 3}}
	errOut.Reset()
	if code := runOnce(context.Background(), src, verifyOptions(), &out, &errOut); code != 4 {
		t.Fatalf("exit %d, want 4; stderr %q", code, errOut.String())
	}
	if strings.Contains(errOut.String(), "pods") {
		t.Errorf("stderr names the informer that verified: %q", errOut.String())
	}
}

// What the server wrote reaches stderr escaped.
func TestOnceVerifyEscapesServerText(t *testing.T) {
	src := sourcetest.NewVerifying(syncedCluster("pods"))
	src.SetVerify(verify.Result{}, errors.New("the server said \x1b[2J\x1b]0;owned\x07"))
	var out, errOut bytes.Buffer
	if code := runOnce(context.Background(), src, verifyOptions(), &out, &errOut); code != 4 {
		t.Fatalf("exit %d, want 4", code)
	}
	if strings.ContainsRune(errOut.String(), 0x1b) || !strings.Contains(errOut.String(), `the server said \x1b[2J\x1b]0;owned\a.`) {
		t.Fatalf("stderr %q is not escaped", errOut.String())
	}
}

// A source that cannot list a server (one that is no source.Verifier;
// the demo's --verify is refused at the flags) checks nothing, and says so
// with exit 4.
func TestOnceVerifyWithoutVerifierExits4(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := runOnce(context.Background(), syncedCluster("pods"), verifyOptions(), &out, &errOut); code != 4 {
		t.Fatalf("exit %d, want 4; stderr %q", code, errOut.String())
	}
	for _, want := range []string{"pods: could not verify: the kube source cannot compare its caches with a server", "--verify needs a source that can list the API server"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr %q lacks %q", errOut.String(), want)
		}
	}
}

// slowVerify answers as a real API server does when the comparison
// outlasts --timeout: client-go passes the deadline on (?timeout=), and
// the server's 504 may come back before the context's own error.
type slowVerify struct{ *sourcetest.Cluster }

func (v slowVerify) Verify(ctx context.Context, _ string) (verify.Result, error) {
	<-ctx.Done()
	return verify.Result{}, fmt.Errorf("listing at RV 5573 failed: %w",
		apierrors.NewTimeoutError("request did not complete within requested timeout - context deadline exceeded", 0))
}

func (v slowVerify) Controls() source.Controls {
	c := v.Cluster.Controls()
	c.Verifier = v
	return c
}

// --verify --timeout cut short says to raise --timeout, not to look at
// reachability or RBAC.
func TestOnceVerifyTimeoutBlamesTheTimeout(t *testing.T) {
	o := verifyOptions()
	o.timeout = 50 * time.Millisecond
	var out, errOut bytes.Buffer
	if code := runOnce(context.Background(), slowVerify{syncedCluster("configmaps")}, o, &out, &errOut); code != 4 {
		t.Fatalf("exit %d, want 4; stderr %q", code, errOut.String())
	}
	if !strings.Contains(errOut.String(), "took longer than --timeout 50ms; raise --timeout") || strings.Contains(errOut.String(), "list allowed") {
		t.Fatalf("stderr %q", errOut.String())
	}
}
