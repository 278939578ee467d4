package cluster

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

var nodeNames = []string{
	"node-a-01", "node-a-02", "node-a-03", "node-a-04",
	"node-b-01", "node-b-02", "node-b-03", "node-b-04",
	"node-c-01", "node-c-02", "node-c-03", "node-c-04",
}

// replicaSet is what the pods of one app in one namespace share, as pods
// stamped from one ReplicaSet's template do. Stored objects are immutable and
// every object handed out is a deep copy, so sharing these parts between
// stored pods is safe; it keeps a 50k-pod cluster small.
type replicaSet struct {
	name        string
	labels      map[string]string
	annotations map[string]string
	owners      []metav1.OwnerReference
	spec        corev1.PodSpec // without NodeName
	imageID     string
}

// replicaSetFor returns (creating on first use) the ReplicaSet of a in ns.
func (g *generator) replicaSetFor(ns string, a app) *replicaSet {
	id := ns + "/" + a.name
	if rs, ok := g.replicaSets[id]; ok {
		return rs
	}
	hash := templateHash(ns, a.name)
	rs := &replicaSet{name: a.name + "-" + hash}
	rs.labels = appLabels(a)
	rs.labels["pod-template-hash"] = hash
	rs.labels["track"] = "stable"
	rs.annotations = map[string]string{"kubectl.kubernetes.io/default-container": a.name}
	rs.owners = []metav1.OwnerReference{{
		APIVersion:         "apps/v1",
		Kind:               "ReplicaSet",
		Name:               rs.name,
		UID:                g.uid(),
		Controller:         ptr.To(true),
		BlockOwnerDeletion: ptr.To(true),
	}}
	image := a.imageOf(g.version())
	rs.imageID = image + "@sha256:" + g.suffix(12)
	rs.spec = corev1.PodSpec{
		Containers: []corev1.Container{{
			Name:  a.name,
			Image: image,
			Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: a.port, Protocol: corev1.ProtocolTCP}},
			Env: []corev1.EnvVar{
				{Name: "LOG_LEVEL", Value: "info"},
				{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}},
			},
			Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{
					corev1.ResourceCPU:    resource.MustParse(fmt.Sprintf("%dm", 50*(1+g.pick(8)))),
					corev1.ResourceMemory: resource.MustParse(fmt.Sprintf("%dMi", 64*(1+g.pick(8)))),
				},
			},
			ReadinessProbe: &corev1.Probe{
				ProbeHandler:  corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(a.port)}},
				PeriodSeconds: 10,
			},
			TerminationMessagePath:   corev1.TerminationMessagePathDefault,
			TerminationMessagePolicy: corev1.TerminationMessageReadFile,
			ImagePullPolicy:          corev1.PullIfNotPresent,
		}},
		RestartPolicy:                 corev1.RestartPolicyAlways,
		TerminationGracePeriodSeconds: ptr.To[int64](30),
		DNSPolicy:                     corev1.DNSClusterFirst,
		ServiceAccountName:            "default",
		SchedulerName:                 corev1.DefaultSchedulerName,
		Tolerations: []corev1.Toleration{
			{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)},
			{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)},
		},
		EnableServiceLinks: ptr.To(true),
	}
	g.replicaSets[id] = rs
	return rs
}

// genPod makes a pod as a Deployment's ReplicaSet would have created it.
func genPod(g *generator, ns string, taken func(string) bool) runtime.Object {
	rs := g.replicaSetFor(ns, g.app(ns))
	name := rs.name + "-" + g.suffix(5)
	for taken(ns + "/" + name) {
		name = rs.name + "-" + g.suffix(5)
	}
	created := g.created()
	pod := &corev1.Pod{
		TypeMeta: typeMeta(corev1.SchemeGroupVersion, "Pod"),
		ObjectMeta: metav1.ObjectMeta{
			Name:              name,
			GenerateName:      rs.name + "-",
			Namespace:         ns,
			UID:               g.uid(),
			CreationTimestamp: created,
			Labels:            rs.labels,
			Annotations:       rs.annotations,
			OwnerReferences:   rs.owners,
		},
		Spec: rs.spec,
		Status: corev1.PodStatus{
			Phase:    corev1.PodPending,
			HostIP:   fmt.Sprintf("10.0.%d.%d", 1+g.pick(3), 10+g.pick(200)),
			QOSClass: corev1.PodQOSBurstable,
		},
	}
	pod.Spec.NodeName = nodeNames[g.pick(len(nodeNames))]
	started := metav1.NewTime(created.Add(time.Duration(1+g.pick(5)) * time.Second))
	pod.Status.StartTime = &started
	c := rs.spec.Containers[0]
	cs := corev1.ContainerStatus{Name: c.Name, Image: c.Image, ImageID: rs.imageID}
	running := !g.chance(0.05)
	if running {
		pod.Status.Phase = corev1.PodRunning
		pod.Status.PodIP = fmt.Sprintf("10.244.%d.%d", g.pick(64), 2+g.pick(250))
		pod.Status.PodIPs = []corev1.PodIP{{IP: pod.Status.PodIP}}
		cs.Ready = true
		cs.Started = ptr.To(true)
		cs.ContainerID = "containerd://" + g.suffix(24)
		cs.State.Running = &corev1.ContainerStateRunning{StartedAt: started}
	} else {
		cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}
	}
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{cs}
	pod.Status.Conditions = podConditions(created, running)
	return pod
}

func podConditions(at metav1.Time, ready bool) []corev1.PodCondition {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	return []corev1.PodCondition{
		{Type: corev1.PodReadyToStartContainers, Status: corev1.ConditionTrue, LastTransitionTime: at},
		{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: at},
		{Type: corev1.PodReady, Status: status, LastTransitionTime: at},
		{Type: corev1.ContainersReady, Status: status, LastTransitionTime: at},
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: at},
	}
}

// mutatePod applies one of the changes a kubelet or a rollout makes.
func mutatePod(g *generator, obj runtime.Object) runtime.Object {
	pod := obj.(*corev1.Pod).DeepCopy()
	now := g.now()
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	if len(pod.Status.ContainerStatuses) == 0 {
		// Not a pod we generated: the only safe visible change is metadata.
		annotateProbe(g, &pod.ObjectMeta, now)
		return pod
	}
	cs := &pod.Status.ContainerStatuses[0]
	switch {
	case pod.Status.Phase == corev1.PodPending:
		// The pending pod starts.
		pod.Status.Phase = corev1.PodRunning
		pod.Status.PodIP = fmt.Sprintf("10.244.%d.%d", g.pick(64), 2+g.pick(250))
		pod.Status.PodIPs = []corev1.PodIP{{IP: pod.Status.PodIP}}
		cs.Ready, cs.Started = true, ptr.To(true)
		cs.ContainerID = "containerd://" + g.suffix(24)
		cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}
		pod.Status.Conditions = podConditions(now, true)
	default:
		switch g.pick(10) {
		case 0, 1, 2: // the container crashed and was restarted
			cs.RestartCount++
			reason, code := "Error", int32(1)
			if g.chance(0.5) {
				reason, code = "OOMKilled", 137
			}
			cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: code, Reason: reason, FinishedAt: now, ContainerID: cs.ContainerID,
			}}
			cs.ContainerID = "containerd://" + g.suffix(24)
			cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}
		case 3, 4, 5: // readiness flipped
			cs.Ready = !cs.Ready
			pod.Status.Conditions = podConditions(now, cs.Ready)
		case 6: // canary / stable relabel, which moves the pod across label selectors
			if pod.Labels == nil {
				pod.Labels = map[string]string{}
			}
			if pod.Labels["track"] == "canary" {
				pod.Labels["track"] = "stable"
			} else {
				pod.Labels["track"] = "canary"
			}
		default: // an agent annotated it
			annotateProbe(g, &pod.ObjectMeta, now)
		}
	}
	return pod
}

// annotateProbe records a (simulated) agent's probe on any object.
func annotateProbe(g *generator, m *metav1.ObjectMeta, now metav1.Time) {
	if m.Annotations == nil {
		m.Annotations = map[string]string{}
	}
	m.Annotations["informtop.dev/last-probe"] = now.UTC().Format(time.RFC3339)
	m.Annotations["informtop.dev/probe-id"] = g.suffix(8)
}
