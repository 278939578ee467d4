package engine

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	fcache "k8s.io/client-go/tools/cache/testing"
)

// envMutationChild makes the test binary run one informer with a handler
// that mutates what it receives (see runMutatingInformer), as a process of
// its own: client-go's mutation detector ends a process by panicking.
const envMutationChild = "INFORMTOP_MUTATION_CHILD"

// runMutatingInformer runs client-go's informer or the engine over three
// pods with a handler that labels every pod it gets, for 5 seconds, then
// exits 0 if nothing stopped it.
func runMutatingInformer(which string) {
	src := fcache.NewFakeControllerSource()
	for i := range 3 {
		src.Add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("p%d", i)}})
	}
	var inf cache.SharedIndexInformer
	if which == "client-go" {
		inf = cache.NewSharedIndexInformer(src, &corev1.Pod{}, 0, cache.Indexers{})
	} else {
		inf = NewSharedIndexInformer(src, &corev1.Pod{}, 0, cache.Indexers{})
	}
	mutate := func(obj any) {
		obj.(*corev1.Pod).Labels = map[string]string{"touched": "yes"} // the classic bug: no DeepCopy
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: mutate}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var wg wait.Group
	wg.StartWithContext(ctx, inf.RunWithContext)
	wg.Wait()
	fmt.Println("ran 5s without a failure")
}

// TestMutationDetectorParity: the same mutating handler on client-go's
// informer and on the engine, with KUBE_CACHE_MUTATION_DETECTOR=true: both
// processes panic naming the modified cached object's type within the
// detector's period; with the switch off, neither does.
func TestMutationDetectorParity(t *testing.T) {
	t.Parallel()
	for _, detector := range []string{"true", ""} {
		for _, which := range []string{"client-go", "engine"} {
			t.Run(which+"/detector="+detector, func(t *testing.T) {
				t.Parallel()
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), envMutationChild+"="+which, "KUBE_CACHE_MUTATION_DETECTOR="+detector)
				began := time.Now()
				out, err := cmd.CombinedOutput()
				took := time.Since(began)
				failed := err != nil
				if detector == "" {
					if failed || !strings.Contains(string(out), "without a failure") {
						t.Fatalf("detector off: %v\n%s", err, out)
					}
					return
				}
				if !failed || !strings.Contains(string(out), "panic: cache *v1.Pod modified") || took > 4*time.Second {
					t.Fatalf("detector on: exit %v after %s; want a panic naming the cached *v1.Pod within the detector's 1 s period:\n%s", err, took, out)
				}
			})
		}
	}
}
