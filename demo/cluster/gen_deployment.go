package cluster

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// genDeployment makes a settled Deployment of a catalog app.
func genDeployment(g *generator, ns string, taken func(string) bool) runtime.Object {
	a := g.app(ns)
	name := uniqueName(ns, a.name, taken)
	created := g.created()
	replicas := int32(1 + g.pick(5))
	labels := appLabels(a)
	podLabels := copyLabels(labels)
	podLabels["track"] = "stable"
	maxSurge, maxUnavailable := intstr.FromString("25%"), intstr.FromString("25%")

	d := &appsv1.Deployment{
		TypeMeta: typeMeta(appsv1.SchemeGroupVersion, "Deployment"),
		ObjectMeta: metav1.ObjectMeta{
			Name:              name,
			Namespace:         ns,
			UID:               g.uid(),
			CreationTimestamp: created,
			Generation:        1,
			Labels:            labels,
			Annotations:       map[string]string{"deployment.kubernetes.io/revision": "1"},
		},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": a.name}},
			Strategy: appsv1.DeploymentStrategy{
				Type:          appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &maxSurge, MaxUnavailable: &maxUnavailable},
			},
			RevisionHistoryLimit:    ptr.To[int32](10),
			ProgressDeadlineSeconds: ptr.To[int32](600),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{
						Name:  a.name,
						Image: a.imageOf(g.version()),
						Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: a.port, Protocol: corev1.ProtocolTCP}},
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
							corev1.ResourceCPU:    resource.MustParse(fmt.Sprintf("%dm", 50*(1+g.pick(8)))),
							corev1.ResourceMemory: resource.MustParse(fmt.Sprintf("%dMi", 64*(1+g.pick(8)))),
						}},
						TerminationMessagePath:   corev1.TerminationMessagePathDefault,
						TerminationMessagePolicy: corev1.TerminationMessageReadFile,
						ImagePullPolicy:          corev1.PullIfNotPresent,
					}},
					RestartPolicy:                 corev1.RestartPolicyAlways,
					TerminationGracePeriodSeconds: ptr.To[int64](30),
					DNSPolicy:                     corev1.DNSClusterFirst,
					SchedulerName:                 corev1.DefaultSchedulerName,
				},
			},
		},
	}
	settleDeployment(d, created)
	return d
}

// settleDeployment makes the status report a finished rollout of the spec.
func settleDeployment(d *appsv1.Deployment, at metav1.Time) {
	r := ptr.Deref(d.Spec.Replicas, 1)
	d.Status = appsv1.DeploymentStatus{
		ObservedGeneration: d.Generation,
		Replicas:           r,
		UpdatedReplicas:    r,
		ReadyReplicas:      r,
		AvailableReplicas:  r,
		Conditions: []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable",
				Message: "Deployment has minimum availability.", LastUpdateTime: at, LastTransitionTime: at},
			{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "NewReplicaSetAvailable",
				Message:        fmt.Sprintf("ReplicaSet %q has successfully progressed.", d.Name+"-"+templateHash(d.Namespace, d.Name)),
				LastUpdateTime: at, LastTransitionTime: at},
		},
	}
}

// mutateDeployment scales, rolls out a new image, or lets a rollout finish.
func mutateDeployment(g *generator, obj runtime.Object) runtime.Object {
	d := obj.(*appsv1.Deployment).DeepCopy()
	now := g.now()
	switch {
	case d.Status.ObservedGeneration != d.Generation:
		// The controller catches up with the last spec change.
		settleDeployment(d, now)
	case g.chance(0.5) || len(d.Spec.Template.Spec.Containers) == 0:
		r := ptr.Deref(d.Spec.Replicas, 1)
		if r <= 1 || (r < 8 && g.chance(0.5)) {
			r++
		} else {
			r--
		}
		d.Spec.Replicas = ptr.To(r)
		d.Generation++
	default:
		c := &d.Spec.Template.Spec.Containers[0]
		img := "registry.example.com/" + d.Name + ":" + g.version()
		if img == c.Image {
			img += "-hotfix"
		}
		c.Image = img
		d.Generation++
		if d.Annotations == nil {
			d.Annotations = map[string]string{}
		}
		d.Annotations["deployment.kubernetes.io/revision"] = fmt.Sprint(d.Generation)
	}
	return d
}
