package tunnel

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
)

// tunnelAt is a tunnel pointed at pod, as New leaves it, on a fake
// cluster holding objs (no port-forward is made).
func tunnelAt(t *testing.T, arg string, at *corev1.Pod, objs ...runtime.Object) (*Tunnel, *fake.Clientset) {
	t.Helper()
	tg, _, err := ParseTarget(arg)
	if err != nil {
		t.Fatal(err)
	}
	cs := fake.NewClientset(objs...)
	tun := &Tunnel{client: cs, ns: "shop", target: tg, cur: resolved{pod: at, port: 8443}, movedCh: make(chan struct{})}
	tun.publish()
	return tun, cs
}

func withUID(p *corev1.Pod, uid string) *corev1.Pod { p.UID = types.UID(uid); return p }

// When the pod goes, a workload's tunnel points at its next running pod
// and says so; a pod's says the pod is gone; a pod back under its name
// (a stateful set's) is followed.
func TestRepointFollowsWhereTheTargetLeads(t *testing.T) {
	gone := withUID(pod("ctrl-a", time.Hour, corev1.PodRunning, true, httpsPort), "a")
	next := withUID(pod("ctrl-b", time.Minute, corev1.PodRunning, true, httpsPort), "b")

	tun, _ := tunnelAt(t, "deploy/ctrl", gone, deployment(), next)
	moved := tun.movedCh
	if err := tun.repoint(context.Background()); err != nil {
		t.Fatal(err)
	}
	if tun.Pod() != "ctrl-b" || tun.Moved() != "pod ctrl-a was deleted; attached to ctrl-b" || tun.Describe() != "shop/ctrl-b (deploy/ctrl):8443 via API server" {
		t.Errorf("after ctrl-a went: pod %q, moved %q, describe %q", tun.Pod(), tun.Moved(), tun.Describe())
	}
	select {
	case <-moved:
	default:
		t.Error("the move was not signalled to the pod's watch")
	}

	tun, _ = tunnelAt(t, "pod/ctrl-a", gone)
	wantErr(t, tun.repoint(context.Background()), "pod shop/ctrl-a is deleted", "attach to its workload")

	back := withUID(pod("ctrl-a", 0, corev1.PodRunning, true, httpsPort), "a2")
	tun, _ = tunnelAt(t, "pod/ctrl-a", gone, back)
	if err := tun.repoint(context.Background()); err != nil {
		t.Fatal(err)
	}
	if tun.cur.pod.UID != "a2" || tun.Moved() != "pod ctrl-a was replaced by a new pod of the same name; attached to it" {
		t.Errorf("a pod back under its name: uid %q, moved %q", tun.cur.pod.UID, tun.Moved())
	}

	terminating := withUID(pod("ctrl-a", time.Hour, corev1.PodRunning, true, httpsPort), "a")
	terminating.DeletionTimestamp = &metav1.Time{Time: created}
	tun, _ = tunnelAt(t, "deploy/ctrl", gone, deployment(), terminating, next)
	if err := tun.repoint(context.Background()); err != nil || tun.Pod() != "ctrl-b" {
		t.Errorf("a terminating pod: %v, on %s; want ctrl-b", err, tun.Pod())
	}
}
