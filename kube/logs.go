package kube

import (
	"context"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/informtop/informtop/agent/source"
)

var _ source.LogStreamer = (*tables)(nil)

// Containers implements source.LogStreamer: the pod's init containers,
// then its containers, as the API server has it now (one get).
func (t *tables) Containers(ctx context.Context, namespace, pod string) ([]string, error) {
	cs, err := kubernetes.NewForConfig(t.configCopy())
	if err != nil {
		return nil, err
	}
	p, err := cs.CoreV1().Pods(namespace).Get(ctx, pod, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("the containers of pod %s/%s could not be read: %w", namespace, pod, err)
	}
	var names []string
	for _, c := range p.Spec.InitContainers {
		names = append(names, c.Name)
	}
	for _, c := range p.Spec.Containers {
		names = append(names, c.Name)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("pod %s/%s has no containers", namespace, pod)
	}
	return names, nil
}

// Logs implements source.LogStreamer through pods/log, as kubectl logs
// reads them.
func (t *tables) Logs(ctx context.Context, namespace, pod string, opts source.LogOptions) (io.ReadCloser, error) {
	cfg := t.configCopy()
	if opts.Follow {
		cfg.Timeout = 0 // a followed stream lasts until the view closes it (ctx)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	lo := &corev1.PodLogOptions{Container: opts.Container, Follow: opts.Follow}
	if opts.TailLines > 0 {
		lo.TailLines = &opts.TailLines
	}
	rc, err := cs.CoreV1().Pods(namespace).GetLogs(pod, lo).Stream(ctx)
	if err != nil {
		return nil, fmt.Errorf("the logs of %s/%s (container %s) could not be read: %w", namespace, pod, opts.Container, err)
	}
	return rc, nil
}
