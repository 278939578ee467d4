package tunnel

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind is a kind of Kubernetes object attach can reach a pod through,
// named by its resource (pods, deployments, …).
type Kind string

// The kinds `informtop attach TYPE/NAME` takes, as kubectl port-forward
// takes them.
const (
	Pod         Kind = "pods"
	Deployment  Kind = "deployments"
	StatefulSet Kind = "statefulsets"
	DaemonSet   Kind = "daemonsets"
	ReplicaSet  Kind = "replicasets"
	Service     Kind = "services"
)

// kindNames maps every name kubectl accepts for a kind (singular, plural,
// short name, and the group-qualified forms) to the kind.
var kindNames = map[string]Kind{
	"pod": Pod, "pods": Pod, "po": Pod,
	"deployment": Deployment, "deployments": Deployment, "deploy": Deployment,
	"deployment.apps": Deployment, "deployments.apps": Deployment,
	"statefulset": StatefulSet, "statefulsets": StatefulSet, "sts": StatefulSet,
	"statefulset.apps": StatefulSet, "statefulsets.apps": StatefulSet,
	"daemonset": DaemonSet, "daemonsets": DaemonSet, "ds": DaemonSet,
	"daemonset.apps": DaemonSet, "daemonsets.apps": DaemonSet,
	"replicaset": ReplicaSet, "replicasets": ReplicaSet, "rs": ReplicaSet,
	"replicaset.apps": ReplicaSet, "replicasets.apps": ReplicaSet,
	"service": Service, "services": Service, "svc": Service,
}

// short is the name the header and sentences use for a kind: kubectl's
// short name, as users type it.
var short = map[Kind]string{
	Pod: "pod", Deployment: "deploy", StatefulSet: "sts", DaemonSet: "ds", ReplicaSet: "rs", Service: "svc",
}

// Target is a Kubernetes object that leads to the agent: TYPE/NAME[:PORT].
type Target struct {
	Kind Kind
	Name string
	// Port is a port number or a port's name; "" picks the container
	// port named informtop, https or metrics, in that order.
	Port string
}

// String is the target as the user would type it.
func (t Target) String() string {
	s := short[t.Kind] + "/" + t.Name
	if t.Port != "" {
		s += ":" + t.Port
	}
	return s
}

// Workload reports whether the target names a set of pods (anything but
// a pod): when its pod goes away, another one of them is found.
func (t Target) Workload() bool { return t.Kind != Pod }

// ParseTarget reads TYPE/NAME[:PORT]. ok is false when arg does not start
// with a kind attach knows (it is then an address, host:port/path); err
// says what is wrong with a target that does.
func ParseTarget(arg string) (t Target, ok bool, err error) {
	typ, rest, found := strings.Cut(strings.TrimSpace(arg), "/")
	if !found {
		return Target{}, false, nil
	}
	kind, known := kindNames[strings.ToLower(typ)]
	if !known {
		return Target{}, false, nil
	}
	name, port, _ := strings.Cut(rest, ":")
	if name == "" || strings.Contains(name, "/") {
		return Target{}, true, fmt.Errorf("%q: give one %s by name, e.g. %s/my-controller or %s/my-controller:8443", arg, typ, typ, typ)
	}
	if strings.Contains(rest, ":") {
		if port == "" {
			return Target{}, true, fmt.Errorf("%q ends in ':' without a port: give a port number or a port's name after it, or leave the ':' out", arg)
		}
		if n, err := strconv.Atoi(port); err == nil && (n < 1 || n > 65535) {
			return Target{}, true, fmt.Errorf("%q: port %d is not between 1 and 65535", arg, n)
		}
	}
	return Target{Kind: kind, Name: name, Port: port}, true, nil
}
