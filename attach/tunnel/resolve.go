package tunnel

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
)

// defaultPortNames are the container ports tried, in order, when the
// target names none: informtop's own, then kubebuilder's secure metrics
// port, then the plain one.
var defaultPortNames = []string{"informtop", "https", "metrics"}

// resolved is where a target leads now: a running pod and its port.
type resolved struct {
	pod  *corev1.Pod
	port int32
}

// resolve finds the pod target leads to in namespace and the port on it,
// as kubectl port-forward does: a workload's or service's selector picks
// its running pods, the ready and oldest first. Errors are sentences.
func resolve(ctx context.Context, client kubernetes.Interface, namespace string, t Target) (resolved, error) {
	var (
		selector labels.Selector
		svcPort  *corev1.ServicePort
		err      error
	)
	switch t.Kind {
	case Pod:
		pod, err := client.CoreV1().Pods(namespace).Get(ctx, t.Name, metav1.GetOptions{})
		if err != nil {
			return resolved{}, getError(err, t, namespace, "pods")
		}
		if why := notRunning(pod); why != "" {
			return resolved{}, fmt.Errorf("pod %s/%s is %s, so nothing in it can be attached to: wait until it runs, or attach to its workload (e.g. deploy/NAME), which finds a running pod by itself", namespace, pod.Name, why)
		}
		port, err := podPort(pod, t, nil)
		return resolved{pod: pod, port: port}, err
	case Service:
		svc, err := client.CoreV1().Services(namespace).Get(ctx, t.Name, metav1.GetOptions{})
		if err != nil {
			return resolved{}, getError(err, t, namespace, "services")
		}
		if len(svc.Spec.Selector) == 0 {
			return resolved{}, fmt.Errorf("service %s/%s has no selector, so no pods of its own: attach to the pod or workload behind it", namespace, svc.Name)
		}
		selector = labels.SelectorFromSet(svc.Spec.Selector)
		if t.Port != "" {
			if svcPort, err = servicePort(svc, t); err != nil {
				return resolved{}, err
			}
		}
	default:
		if selector, err = workloadSelector(ctx, client, namespace, t); err != nil {
			return resolved{}, err
		}
	}
	pods, err := client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector.String()})
	if err != nil {
		return resolved{}, getError(err, t, namespace, "pods")
	}
	pod, err := pickPod(pods.Items, leaders(ctx, client, namespace), t, namespace)
	if err != nil {
		return resolved{}, err
	}
	port, err := podPort(pod, t, svcPort)
	return resolved{pod: pod, port: port}, err
}

// workloadSelector is the pod selector of a deployment, stateful set,
// daemon set or replica set.
func workloadSelector(ctx context.Context, client kubernetes.Interface, namespace string, t Target) (labels.Selector, error) {
	var (
		sel *metav1.LabelSelector
		err error
	)
	apps := client.AppsV1()
	switch t.Kind {
	case Deployment:
		d, e := apps.Deployments(namespace).Get(ctx, t.Name, metav1.GetOptions{})
		if err = e; err == nil {
			sel = d.Spec.Selector
		}
	case StatefulSet:
		s, e := apps.StatefulSets(namespace).Get(ctx, t.Name, metav1.GetOptions{})
		if err = e; err == nil {
			sel = s.Spec.Selector
		}
	case DaemonSet:
		d, e := apps.DaemonSets(namespace).Get(ctx, t.Name, metav1.GetOptions{})
		if err = e; err == nil {
			sel = d.Spec.Selector
		}
	case ReplicaSet:
		r, e := apps.ReplicaSets(namespace).Get(ctx, t.Name, metav1.GetOptions{})
		if err = e; err == nil {
			sel = r.Spec.Selector
		}
	}
	if err != nil {
		return nil, getError(err, t, namespace, string(t.Kind))
	}
	selector, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil || selector.Empty() {
		return nil, fmt.Errorf("%s in %s has no usable pod selector (%v): attach to one of its pods as pod/NAME", t, namespace, err)
	}
	return selector, nil
}

// getError turns a failed get or list into a sentence: not found names
// the namespace, forbidden names the rule attach needs.
func getError(err error, t Target, namespace, resource string) error {
	switch {
	case apierrors.IsNotFound(err):
		return fmt.Errorf("there is no %s %q in namespace %s: check the name and -n (kubectl get %s -n %s lists them)", short[t.Kind], t.Name, namespace, short[t.Kind], namespace)
	case apierrors.IsForbidden(err):
		verb := "get"
		if resource == "pods" && t.Kind != Pod {
			verb = "list"
		}
		return fmt.Errorf("the API server does not let you %s %s in namespace %s (RBAC): attach to %s needs a Role there with get on %s, list on pods and create on pods/portforward", verb, resource, namespace, t, t.Kind)
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("the API server rejected your credentials (401 Unauthorized) while looking up %s: log in again, or check --kubeconfig and --context", t)
	}
	return fmt.Errorf("looking up %s in namespace %s: %w", t, namespace, err)
}

// notRunning says why a pod cannot be forwarded to, or "".
func notRunning(p *corev1.Pod) string {
	switch {
	case p.DeletionTimestamp != nil:
		return "being deleted"
	case p.Status.Phase != corev1.PodRunning:
		return strings.ToLower(string(p.Status.Phase))
	}
	return ""
}

func ready(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// leaders are the pods holding a leader-election Lease in namespace:
// controller-runtime and client-go's leaderelection write the holder as
// "<pod name>_<uuid>". Only the leader runs a manager's controllers, so
// only its informers have the handlers. Empty when leases cannot be
// listed (RBAC): the choice is then kubectl's.
func leaders(ctx context.Context, client kubernetes.Interface, namespace string) map[string]bool {
	leases, err := client.CoordinationV1().Leases(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil
	}
	out := map[string]bool{}
	for _, l := range leases.Items {
		if h := l.Spec.HolderIdentity; h != nil {
			name, _, _ := strings.Cut(*h, "_")
			out[name] = true
		}
	}
	return out
}

// pickPod chooses among a selector's pods: running ones only, the
// leader (a holder of a leader-election lease) first, then ready before
// not ready, then the longest-lived, then by name, so the same set of
// pods always gives the same pod.
func pickPod(pods []corev1.Pod, leader map[string]bool, t Target, namespace string) (*corev1.Pod, error) {
	var running []*corev1.Pod
	var others []string
	for i := range pods {
		p := &pods[i]
		if why := notRunning(p); why != "" {
			others = append(others, p.Name+" "+why)
			continue
		}
		running = append(running, p)
	}
	if len(running) == 0 {
		if len(others) == 0 {
			return nil, fmt.Errorf("%s in %s has no pods: is it scaled to 0? (kubectl get pods -n %s with its selector lists them)", t, namespace, namespace)
		}
		slices.Sort(others)
		if len(others) > 5 {
			others = append(others[:5], fmt.Sprintf("and %d more", len(others)-5))
		}
		return nil, fmt.Errorf("%s in %s has no running pod (%s): wait until one runs", t, namespace, strings.Join(others, ", "))
	}
	slices.SortFunc(running, func(a, b *corev1.Pod) int {
		if la, lb := leader[a.Name], leader[b.Name]; la != lb {
			if la {
				return -1
			}
			return 1
		}
		if ra, rb := ready(a), ready(b); ra != rb {
			if ra {
				return -1
			}
			return 1
		}
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return running[0], nil
}

// servicePort finds the service port t names, by number or name.
func servicePort(svc *corev1.Service, t Target) (*corev1.ServicePort, error) {
	n, numeric := strconv.Atoi(t.Port)
	var have []string
	for i := range svc.Spec.Ports {
		p := &svc.Spec.Ports[i]
		if (numeric == nil && p.Port == int32(n)) || (numeric != nil && p.Name == t.Port) {
			return p, nil
		}
		desc := strconv.Itoa(int(p.Port))
		if p.Name != "" {
			desc = p.Name + " " + desc
		}
		have = append(have, desc)
	}
	return nil, fmt.Errorf("service %s/%s has no port %s; its ports: %s: give one of them as svc/%s:PORT",
		svc.Namespace, svc.Name, t.Port, orNone(have), svc.Name)
}

// podPort is the port on pod to forward to: the service port's target,
// the port t names, or the first of defaultPortNames the pod declares.
func podPort(pod *corev1.Pod, t Target, svcPort *corev1.ServicePort) (int32, error) {
	want := t.Port
	if svcPort != nil {
		tp := svcPort.TargetPort
		switch {
		case tp.Type == intstr.Int && tp.IntVal != 0:
			return tp.IntVal, nil
		case tp.Type == intstr.String && tp.StrVal != "":
			want = tp.StrVal
		default:
			return svcPort.Port, nil // no targetPort: the same number
		}
	}
	if want != "" {
		if n, err := strconv.Atoi(want); err == nil {
			// kubectl forwards to a number whether or not a container
			// declares it; so does attach.
			return int32(n), nil
		}
		if p, ok := namedPort(pod, want); ok {
			return p, nil
		}
		return 0, fmt.Errorf("pod %s/%s declares no port named %q; its ports: %s: give one as %s/%s:PORT",
			pod.Namespace, pod.Name, want, orNone(portList(pod)), short[t.Kind], t.Name)
	}
	for _, name := range defaultPortNames {
		if p, ok := namedPort(pod, name); ok {
			return p, nil
		}
	}
	return 0, fmt.Errorf("pod %s/%s declares no port named %s; its ports: %s: give the agent's port as %s/%s:PORT",
		pod.Namespace, pod.Name, strings.Join(defaultPortNames, ", "), orNone(portList(pod)), short[t.Kind], t.Name)
}

func namedPort(pod *corev1.Pod, name string) (int32, bool) {
	for _, c := range pod.Spec.Containers {
		for _, p := range c.Ports {
			if p.Name == name {
				return p.ContainerPort, true
			}
		}
	}
	return 0, false
}

// portList describes every container port of pod, e.g.
// "metrics 8080/TCP (container manager)".
func portList(pod *corev1.Pod) []string {
	var out []string
	for _, c := range pod.Spec.Containers {
		for _, p := range c.Ports {
			d := fmt.Sprintf("%d/%s (container %s)", p.ContainerPort, cmp.Or(string(p.Protocol), "TCP"), c.Name)
			if p.Name != "" {
				d = p.Name + " " + d
			}
			out = append(out, d)
		}
	}
	return out
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none declared"
	}
	return strings.Join(s, ", ")
}
