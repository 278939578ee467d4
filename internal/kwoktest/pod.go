package kwoktest

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"
)

// probeTimeout bounds one attempt to reach a pod's port, so that a stream
// kwok never answers is retried rather than waited on until the end.
const probeTimeout = 10 * time.Second

// Pod creates pod in its namespace ("default" when empty; the namespace is
// created if missing) with spec.nodeName set to this node, plus a
// PortForward object of the same namespace and name forwarding each port in
// forwards (pod port -> "host:port" on this machine). It returns the pod as
// last seen once it is Running and Ready and a port-forward through the API
// server to every port in forwards reaches its target: kwok learns of
// PortForward objects through a watch, so a forward started right after
// creating one could race it. Reaching means an HTTP request sent through
// the forward got at least one byte back, which any HTTP or HTTPS server
// answers (the latter with a 400). The pod and its PortForward are deleted
// at once when t ends if they are still there.
func (n *Node) Pod(t testing.TB, pod *corev1.Pod, forwards map[int32]string) *corev1.Pod {
	t.Helper()
	began := time.Now()
	pod = pod.DeepCopy()
	if pod.Namespace == "" {
		pod.Namespace = metav1.NamespaceDefault
	}
	pod.Spec.NodeName = n.name
	ns, name := pod.Namespace, pod.Name
	pf, err := portForward(ns, name, forwards)
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	nsObj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
	if _, err := n.cs.CoreV1().Namespaces().Create(ctx, nsObj, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("kwoktest: could not create namespace %s for pod %s: %v", ns, name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		n.forceDelete(ctx, t, ns, name)
	})
	// The PortForward first: kwok's watch then has the pod's whole start to
	// see it.
	if pf != nil {
		if _, err := n.dyn.Resource(portForwardsGVR).Namespace(ns).Create(ctx, pf, metav1.CreateOptions{}); err != nil {
			t.Fatalf("kwoktest: could not create the PortForward %s/%s: %v", ns, name, err)
		}
	}
	if _, err := n.cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("kwoktest: could not create pod %s/%s: %v", ns, name, err)
	}

	var last string
	err = wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if n.p.Exited() {
			return false, fmt.Errorf("kwok exited (%s)", n.p.State())
		}
		got, err := n.cs.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		pod = got
		ready := podCondition(got.Status.Conditions, corev1.PodReady)
		last = fmt.Sprintf("phase %q, Ready %q", got.Status.Phase, ready)
		return got.Status.Phase == corev1.PodRunning && ready == corev1.ConditionTrue, nil
	})
	if err != nil {
		t.Fatalf("kwoktest: pod %s/%s on node %s was not Running and Ready within %s (%v; last seen: %s)",
			ns, name, n.name, timeout, err, last)
	}
	ready := time.Since(began)

	for _, port := range slices.Sorted(maps.Keys(forwards)) {
		var last error
		err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			if n.p.Exited() {
				return false, fmt.Errorf("kwok exited (%s)", n.p.State())
			}
			last = n.reach(ctx, ns, name, port)
			return last == nil, nil
		})
		if err != nil {
			t.Fatalf("kwoktest: a port-forward through the API server to pod %s/%s port %d did not reach %s within %s (%v; last attempt: %v)",
				ns, name, port, forwards[port], timeout, err, last)
		}
	}
	t.Logf("kwoktest: pod %s/%s on node %s Ready in %s, forwarding ports %v in %s",
		ns, name, n.name, ready.Round(time.Millisecond), slices.Sorted(maps.Keys(forwards)), time.Since(began).Round(time.Millisecond))
	return pod
}

// portForward is the PortForward object for a pod's forwards, nil for none.
func portForward(ns, name string, forwards map[int32]string) (*unstructured.Unstructured, error) {
	if len(forwards) == 0 {
		return nil, nil
	}
	var list []any
	for _, port := range slices.Sorted(maps.Keys(forwards)) {
		host, p, err := net.SplitHostPort(forwards[port])
		target, perr := strconv.ParseUint(p, 10, 16)
		if err != nil || perr != nil || host == "" {
			return nil, fmt.Errorf("kwoktest: pod %s/%s forwards port %d to %q, which is not host:port", ns, name, port, forwards[port])
		}
		list = append(list, map[string]any{
			"ports":  []any{int64(port)},
			"target": map[string]any{"address": host, "port": int64(target)},
		})
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kwok.x-k8s.io/v1alpha1",
		"kind":       "PortForward",
		"metadata":   map[string]any{"name": name, "namespace": ns},
		"spec":       map[string]any{"forwards": list},
	}}, nil
}

// reach opens a port-forward through the API server to the pod's port,
// sends an HTTP request and returns nil once a byte comes back; otherwise
// why not, with kwok's word for it when it sent one.
func (n *Node) reach(ctx context.Context, ns, name string, port int32) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	rt, upgrader, err := spdy.RoundTripperFor(n.cfg)
	if err != nil {
		return err
	}
	url := n.cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(ns).Name(name).SubResource("portforward").URL()
	dialer := spdy.NewDialer(upgrader, &http.Client{Transport: rt}, http.MethodPost, url)
	conn, _, err := dialer.Dial(portforward.PortForwardProtocolV1Name)
	if err != nil {
		return err
	}
	defer conn.Close()

	// The port-forward protocol: an error stream, then a data stream, both
	// naming the port and one request ID.
	h := http.Header{}
	h.Set(corev1.StreamType, corev1.StreamTypeError)
	h.Set(corev1.PortHeader, strconv.Itoa(int(port)))
	h.Set(corev1.PortForwardRequestIDHeader, "0")
	errStream, err := conn.CreateStream(h)
	if err != nil {
		return fmt.Errorf("could not create the error stream: %w", err)
	}
	// Only the other side writes on it.
	errStream.Close()
	h.Set(corev1.StreamType, corev1.StreamTypeData)
	data, err := conn.CreateStream(h)
	if err != nil {
		return fmt.Errorf("could not create the data stream: %w", err)
	}

	done := make(chan error, 1)
	go func() {
		_, err := io.WriteString(data, "GET / HTTP/1.0\r\n\r\n")
		if err == nil {
			var b [1]byte
			_, err = io.ReadFull(data, b[:])
		}
		if err != nil {
			// kwok says on the error stream why it ended the data stream
			// ("forward not found for port 81").
			msg, _ := io.ReadAll(io.LimitReader(errStream, 1024))
			if s := strings.TrimSpace(string(msg)); s != "" {
				err = fmt.Errorf("%w: %s", err, s)
			}
		}
		done <- err
	}()
	select {
	case err = <-done:
	case <-ctx.Done():
		// Closing the connection ends the goroutine's reads.
		conn.Close()
		<-done
		err = fmt.Errorf("no answer within %s", probeTimeout)
	}
	return err
}

// DeletePod deletes the pod and its PortForward and returns once the pod
// object is gone, which kwok's pod-delete stage does once the API server
// has marked it deleted.
func (n *Node) DeletePod(t testing.TB, namespace, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := n.cs.CoreV1().Pods(namespace).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("kwoktest: could not delete pod %s/%s: %v", namespace, name, err)
	}
	err := n.dyn.Resource(portForwardsGVR).Namespace(namespace).Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("kwoktest: could not delete the PortForward %s/%s: %v", namespace, name, err)
	}
	var last string
	err = wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		pod, err := n.cs.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		if err != nil {
			last = err.Error()
		} else {
			last = fmt.Sprintf("still there, deletionTimestamp %v, finalizers %v", pod.DeletionTimestamp, pod.Finalizers)
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("kwoktest: pod %s/%s on node %s was not gone within %s (%v; last seen: %s); is kwok running (%s)?",
			namespace, name, n.name, timeout, err, last, n.p.State())
	}
}

// forceDelete deletes a pod and its PortForward at once, if there, without
// waiting for kwok: for cleanups, which may run after kwok stopped.
func (n *Node) forceDelete(ctx context.Context, t testing.TB, ns, name string) {
	now := int64(0)
	err := n.cs.CoreV1().Pods(ns).Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: &now})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("kwoktest: could not delete pod %s/%s: %v", ns, name, err)
	}
	err = n.dyn.Resource(portForwardsGVR).Namespace(ns).Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("kwoktest: could not delete the PortForward %s/%s: %v", ns, name, err)
	}
}

func podCondition(conds []corev1.PodCondition, typ corev1.PodConditionType) corev1.ConditionStatus {
	for _, c := range conds {
		if c.Type == typ {
			return c.Status
		}
	}
	return ""
}
