package kwoktest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
)

// CRILine is one line of a container log file as kwok reads it (the CRI
// format the kubelet writes): timestamp, stream, full-line tag, text.
func CRILine(at time.Time, text string) string {
	return at.UTC().Format(time.RFC3339Nano) + " stdout F " + text + "\n"
}

// Logs makes kwok serve, for pods/log of the pod ns/name, each container's
// log from the file files names (written in CRI lines, see CRILine),
// followed as it grows. It returns once a read of the first container's
// log through the API server brings that file's first line, as kwok learns
// of Logs objects through a watch. The object is deleted when t ends.
func (n *Node) Logs(t testing.TB, ns, name string, files map[string]string, firstLine string) {
	t.Helper()
	var logs []any
	containers := slices.Sorted(maps.Keys(files))
	for _, c := range containers {
		logs = append(logs, map[string]any{"containers": []any{c}, "logsFile": files[c], "follow": true})
	}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kwok.x-k8s.io/v1alpha1",
		"kind":       "Logs",
		"metadata":   map[string]any{"name": name, "namespace": ns},
		"spec":       map[string]any{"logs": logs},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if _, err := n.dyn.Resource(logsGVR).Namespace(ns).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		t.Fatalf("kwoktest: could not create the Logs %s/%s: %v", ns, name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		if err := n.dyn.Resource(logsGVR).Namespace(ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("kwoktest: could not delete the Logs %s/%s: %v", ns, name, err)
		}
	})
	var last string
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if n.p.Exited() {
			return false, fmt.Errorf("kwok exited (%s)", n.p.State())
		}
		tail := int64(100)
		raw, err := n.cs.CoreV1().Pods(ns).GetLogs(name, &corev1.PodLogOptions{Container: containers[0], TailLines: &tail}).DoRaw(ctx)
		last = fmt.Sprint(string(raw), err)
		return err == nil && strings.Contains(string(raw), firstLine), nil
	})
	if err != nil {
		t.Fatalf("kwoktest: the log of %s/%s (container %s) did not bring %q within %s (%v; last read: %s)", ns, name, containers[0], firstLine, timeout, err, last)
	}
}
