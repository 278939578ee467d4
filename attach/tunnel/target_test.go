package tunnel

import (
	"strings"
	"testing"
)

func TestParseTargetTakesKubectlsNames(t *testing.T) {
	for _, tc := range []struct {
		arg  string
		want Target
	}{
		{"pod/ctrl-0", Target{Kind: Pod, Name: "ctrl-0"}},
		{"po/ctrl-0:6060", Target{Kind: Pod, Name: "ctrl-0", Port: "6060"}},
		{"deploy/orders-controller", Target{Kind: Deployment, Name: "orders-controller"}},
		{"deployment.apps/orders:https", Target{Kind: Deployment, Name: "orders", Port: "https"}},
		{"sts/db", Target{Kind: StatefulSet, Name: "db"}},
		{"ds/agent", Target{Kind: DaemonSet, Name: "agent"}},
		{"rs/ctrl-7d9f", Target{Kind: ReplicaSet, Name: "ctrl-7d9f"}},
		{"svc/metrics:8443", Target{Kind: Service, Name: "metrics", Port: "8443"}},
		{"Services/metrics", Target{Kind: Service, Name: "metrics"}},
	} {
		got, ok, err := ParseTarget(tc.arg)
		if !ok || err != nil || got != tc.want {
			t.Errorf("ParseTarget(%q) = %+v, %t, %v; want %+v", tc.arg, got, ok, err, tc.want)
		}
	}
}

func TestParseTargetLeavesAddressesAlone(t *testing.T) {
	for _, arg := range []string{"127.0.0.1:6060", "127.0.0.1:8080/debug/informtop/", "http://pod/x", "localhost/debug", "ctrl:6060"} {
		if _, ok, err := ParseTarget(arg); ok || err != nil {
			t.Errorf("ParseTarget(%q) took it as a Kubernetes target (ok=%t, err=%v); it is an address", arg, ok, err)
		}
	}
}

func TestParseTargetSaysWhatIsWrong(t *testing.T) {
	for _, tc := range []struct{ arg, want string }{
		{"deploy/", "give one deploy by name"},
		{"pod/a/b", "give one pod by name"},
		{"svc/x:", "without a port"},
		{"pod/x:70000", "not between 1 and 65535"},
		{"pod/x:0", "not between 1 and 65535"},
	} {
		_, ok, err := ParseTarget(tc.arg)
		if !ok || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseTarget(%q) = ok %t, %v; want an error saying %q", tc.arg, ok, err, tc.want)
		}
	}
}

func TestTargetStringIsWhatUsersType(t *testing.T) {
	tg, _, _ := ParseTarget("deployment/ctrl:metrics")
	if got := tg.String(); got != "deploy/ctrl:metrics" {
		t.Errorf("String() = %q, want deploy/ctrl:metrics", got)
	}
}
