package tunnel

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/fake"
)

var created = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

func pod(name string, age time.Duration, phase corev1.PodPhase, ready bool, ports ...corev1.ContainerPort) *corev1.Pod {
	cond := corev1.ConditionFalse
	if ready {
		cond = corev1.ConditionTrue
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop", Labels: map[string]string{"app": "ctrl"},
			CreationTimestamp: metav1.NewTime(created.Add(-age))},
		Spec:   corev1.PodSpec{Containers: []corev1.Container{{Name: "manager", Ports: ports}}},
		Status: corev1.PodStatus{Phase: phase, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: cond}}},
	}
}

func deployment() *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "ctrl", Namespace: "shop"},
		Spec:       appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "ctrl"}}},
	}
}

func mustResolve(t *testing.T, arg string, objs ...runtime.Object) resolved {
	t.Helper()
	r, err := tryResolve(t, arg, objs...)
	if err != nil {
		t.Fatalf("resolve(%s): %v", arg, err)
	}
	return r
}

func tryResolve(t *testing.T, arg string, objs ...runtime.Object) (resolved, error) {
	t.Helper()
	tg, ok, err := ParseTarget(arg)
	if !ok || err != nil {
		t.Fatalf("ParseTarget(%q): %t %v", arg, ok, err)
	}
	return resolve(context.Background(), fake.NewClientset(objs...), "shop", tg)
}

var (
	metricsPort   = corev1.ContainerPort{Name: "metrics", ContainerPort: 8080}
	httpsPort     = corev1.ContainerPort{Name: "https", ContainerPort: 8443}
	informtopPort = corev1.ContainerPort{Name: "informtop", ContainerPort: 6060}
)

func TestWorkloadPicksARunningReadyPodAsKubectlDoes(t *testing.T) {
	r := mustResolve(t, "deploy/ctrl", deployment(),
		pod("ctrl-pending", time.Hour, corev1.PodPending, false, httpsPort),
		pod("ctrl-not-ready", 2*time.Hour, corev1.PodRunning, false, httpsPort),
		pod("ctrl-young", time.Minute, corev1.PodRunning, true, httpsPort),
		pod("ctrl-old", time.Hour, corev1.PodRunning, true, httpsPort),
	)
	if r.pod.Name != "ctrl-old" || r.port != 8443 {
		t.Errorf("deploy/ctrl led to %s:%d; want ctrl-old:8443 (running, ready, longest-lived)", r.pod.Name, r.port)
	}
}

func TestPortChoiceWithoutAPortPrefersInformtopThenHTTPSThenMetrics(t *testing.T) {
	for _, tc := range []struct {
		ports []corev1.ContainerPort
		want  int32
	}{
		{[]corev1.ContainerPort{metricsPort, httpsPort, informtopPort}, 6060},
		{[]corev1.ContainerPort{metricsPort, httpsPort}, 8443},
		{[]corev1.ContainerPort{metricsPort}, 8080},
	} {
		r := mustResolve(t, "pod/ctrl-0", pod("ctrl-0", time.Hour, corev1.PodRunning, true, tc.ports...))
		if r.port != tc.want {
			t.Errorf("ports %v: chose %d, want %d", tc.ports, r.port, tc.want)
		}
	}
}

func TestNamedAndNumberedPorts(t *testing.T) {
	p := pod("ctrl-0", time.Hour, corev1.PodRunning, true, metricsPort, httpsPort)
	if r := mustResolve(t, "pod/ctrl-0:metrics", p); r.port != 8080 {
		t.Errorf("pod/ctrl-0:metrics chose %d, want 8080", r.port)
	}
	// A number is forwarded to whether declared or not, as kubectl does.
	if r := mustResolve(t, "pod/ctrl-0:9999", p); r.port != 9999 {
		t.Errorf("pod/ctrl-0:9999 chose %d, want 9999", r.port)
	}
	_, err := tryResolve(t, "pod/ctrl-0:informtop", p)
	wantErr(t, err, `declares no port named "informtop"`, "metrics 8080/TCP (container manager)", "https 8443/TCP", "pod/ctrl-0:PORT")
	_, err = tryResolve(t, "pod/ctrl-0", pod("ctrl-0", time.Hour, corev1.PodRunning, true))
	wantErr(t, err, "declares no port named informtop, https, metrics", "none declared", "pod/ctrl-0:PORT")
}

func TestServicePortLeadsToItsTargetPort(t *testing.T) {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "ctrl-metrics", Namespace: "shop"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "ctrl"}, Ports: []corev1.ServicePort{
			{Name: "https", Port: 443, TargetPort: intstr.FromString("https")},
			{Name: "plain", Port: 80, TargetPort: intstr.FromInt32(8080)},
		}},
	}
	p := pod("ctrl-0", time.Hour, corev1.PodRunning, true, metricsPort, httpsPort)
	for arg, want := range map[string]int32{"svc/ctrl-metrics:443": 8443, "svc/ctrl-metrics:https": 8443, "svc/ctrl-metrics:plain": 8080, "svc/ctrl-metrics": 8443} {
		if r := mustResolve(t, arg, svc, p); r.port != want {
			t.Errorf("%s chose %d, want %d", arg, r.port, want)
		}
	}
	_, err := tryResolve(t, "svc/ctrl-metrics:9090", svc, p)
	wantErr(t, err, "has no port 9090", "https 443, plain 80")
}

func TestResolveSentences(t *testing.T) {
	_, err := tryResolve(t, "deploy/nope")
	wantErr(t, err, `there is no deploy "nope" in namespace shop`, "kubectl get deploy -n shop")
	_, err = tryResolve(t, "deploy/ctrl", deployment(), pod("ctrl-a", time.Hour, corev1.PodPending, false))
	wantErr(t, err, "has no running pod", "ctrl-a pending")
	_, err = tryResolve(t, "deploy/ctrl", deployment())
	wantErr(t, err, "has no pods", "scaled to 0")
	_, err = tryResolve(t, "pod/ctrl-a", pod("ctrl-a", time.Hour, corev1.PodPending, false))
	wantErr(t, err, "pod shop/ctrl-a is pending", "attach to its workload")
}

func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one saying %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not say %q", err, p)
		}
	}
}

// A manager's controllers run on the leader only: of a Deployment's
// replicas, the pod holding the leader-election lease is chosen.
func TestWorkloadPrefersTheLeader(t *testing.T) {
	holder := "ctrl-young_5c1f0d7e-8a4b-4b8e-9d52-3b8f0e1c2a77"
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "ctrl.example.com", Namespace: "shop"},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder}}
	r := mustResolve(t, "deploy/ctrl", deployment(), lease,
		pod("ctrl-old", time.Hour, corev1.PodRunning, true, httpsPort),
		pod("ctrl-young", time.Minute, corev1.PodRunning, true, httpsPort),
	)
	if r.pod.Name != "ctrl-young" {
		t.Errorf("deploy/ctrl led to %s; want ctrl-young, the lease's holder", r.pod.Name)
	}
}
