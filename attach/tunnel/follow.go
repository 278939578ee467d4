package tunnel

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// follow watches the pod the tunnel leads to (one watch of one object)
// and, when it is deleted, starts terminating or is replaced, closes the
// port-forward connection: the agent's HTTP connection inside it ends at
// once, and the next dial finds the workload's next pod. A kubelet ends
// the streams of a pod that is gone, but a pod that is only terminating
// still answers, and the tunnel should leave it for the one that
// replaces it. It runs until ctx ends.
func (t *Tunnel) follow(ctx context.Context) {
	defer close(t.followed)
	for ctx.Err() == nil {
		t.mu.Lock()
		name, uid, moved := t.cur.pod.Name, t.cur.pod.UID, t.movedCh
		t.mu.Unlock()
		w, err := t.client.CoreV1().Pods(t.ns).Watch(ctx, metav1.ListOptions{
			FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String(),
		})
		if apierrors.IsForbidden(err) {
			// Without watch on pods the tunnel still moves on once the
			// kubelet ends the old pod's streams.
			return
		}
		if err != nil {
			if !sleep(ctx, time.Second) {
				return
			}
			continue
		}
		gone := watchPod(ctx, w, uid, moved)
		w.Stop()
		if !gone {
			continue // the watch ended, or the tunnel moved on: watch anew
		}
		t.podGone()
		select { // until the tunnel leads to another pod
		case <-ctx.Done():
			return
		case <-moved:
		}
	}
}

// watchPod reads w until the pod uid is gone (true), or the watch ends or
// the tunnel moves to another pod (false).
func watchPod(ctx context.Context, w watch.Interface, uid types.UID, moved <-chan struct{}) bool {
	for {
		select {
		case <-ctx.Done():
			return false
		case <-moved:
			return false
		case ev, ok := <-w.ResultChan():
			if !ok {
				return false
			}
			pod, isPod := ev.Object.(*corev1.Pod)
			switch {
			case !isPod:
				continue // a watch error: it ends next
			case ev.Type == watch.Deleted, pod.UID != uid, pod.DeletionTimestamp != nil, pod.Status.Phase != corev1.PodRunning:
				return true
			}
		}
	}
}

// podGone closes the connection to a pod that is going away and makes the
// next dial look for where to go.
func (t *Tunnel) podGone() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stale = true
	t.hangUp()
}

func sleep(ctx context.Context, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}
