// Package benchwire is a benchmark's API server: it serves a list of
// realistic pods and one watch stream of updates to them, both as
// Kubernetes protobuf over HTTP, so an informer in front of it decodes
// every object as it does on a cluster. Everything it sends is encoded
// before the benchmark's timer starts.
package benchwire

import (
	"context"
	"encoding/binary"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/internal/wirekeep"
)

// Server serves GET /api/v1/pods: the list, and with ?watch=true from the
// list's resourceVersion the prepared events, then nothing until the
// client goes away; a watch from anywhere else gets nothing. One Server
// serves any number of informers, one after the other.
// Locking: none after New; frames and list are read-only.
type Server struct {
	srv    *httptest.Server
	listRV string
	list   []byte
	frames []byte // length-delimited protobuf WatchEvents
}

// New prepares initial pods and events MODIFIED events cycling through
// them, each with the next resourceVersion, and starts serving.
func New(initial, events int) (*Server, error) {
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: strconv.Itoa(initial)}}
	for i := range initial {
		list.Items = append(list.Items, *Pod(i, i+1))
	}
	s := &Server{listRV: list.ResourceVersion}
	var err error
	if s.list, err = Protobuf(list); err != nil {
		return nil, err
	}
	for i := range events {
		obj, err := Protobuf(Pod(i%initial, initial+i+1))
		if err != nil {
			return nil, err
		}
		ev := metav1.WatchEvent{Type: string(watch.Modified), Object: runtime.RawExtension{Raw: obj}}
		b, err := ev.Marshal()
		if err != nil {
			return nil, err
		}
		if s.frames == nil {
			s.frames = make([]byte, 0, events*(len(b)+64))
		}
		s.frames = binary.BigEndian.AppendUint32(s.frames, uint32(len(b)))
		s.frames = append(s.frames, b...)
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s, nil
}

// Protobuf is obj, a core/v1 object, as the API server sends it: its
// apiVersion and kind, then its protobuf.
func Protobuf(obj runtime.Object) ([]byte, error) {
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	if !ok {
		return nil, fmt.Errorf("no protobuf serializer")
	}
	return runtime.Encode(scheme.Codecs.EncoderForVersion(info.Serializer, corev1.SchemeGroupVersion), obj)
}

// WireBytes is the size of the prepared watch stream.
func (s *Server) WireBytes() int { return len(s.frames) }

// Close stops the server; call it after the informer stopped.
func (s *Server) Close() { s.srv.Close() }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("watch") != "true" {
		w.Header().Set("Content-Type", runtime.ContentTypeProtobuf)
		_, _ = w.Write(s.list)
		return
	}
	w.Header().Set("Content-Type", runtime.ContentTypeProtobuf+";stream=watch")
	w.WriteHeader(http.StatusOK)
	if r.URL.Query().Get("resourceVersion") == s.listRV {
		// Whole frames in 64 KB writes, as a busy API server sends them.
		for b := s.frames; len(b) > 0; {
			n := min(len(b), 64<<10)
			if _, err := w.Write(b[:n]); err != nil {
				return
			}
			b = b[n:]
		}
		w.(http.Flusher).Flush()
	}
	<-r.Context().Done()
}

// ListerWatcher lists and watches the server's pods through a protobuf
// REST client, as informtop's kube source does for built-in kinds, its
// decoded bytes kept for a recording as there.
func (s *Server) ListerWatcher() (cache.ListerWatcher, error) {
	gv := corev1.SchemeGroupVersion
	keeper := &wirekeep.Keeper{}
	rc, err := rest.RESTClientFor(&rest.Config{Host: s.srv.URL, APIPath: "/api", ContentConfig: rest.ContentConfig{
		GroupVersion: &gv, NegotiatedSerializer: keeper.Serializer(scheme.Codecs.WithoutConversion()),
		ContentType: runtime.ContentTypeProtobuf, AcceptContentTypes: runtime.ContentTypeProtobuf,
	}, QPS: -1})
	if err != nil {
		return nil, err
	}
	return listThenWatch{keeper: keeper, ListWatch: &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return rc.Get().Resource("pods").VersionedParams(&o, scheme.ParameterCodec).Do(ctx).Get()
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.Watch = true
			return rc.Get().Resource("pods").VersionedParams(&o, scheme.ParameterCodec).Watch(ctx)
		},
		DisableChunking: true,
	}}, nil
}

// listThenWatch keeps the reflector on LIST + WATCH: the server streams
// no initial events. Its client keeps what it decodes for a recording, as
// the kube source's does.
type listThenWatch struct {
	*cache.ListWatch
	keeper *wirekeep.Keeper
}

// WireKeeper implements wirekeep.Source.
func (l listThenWatch) WireKeeper() *wirekeep.Keeper { return l.keeper }

// IsWatchListSemanticsUnSupported says so to the reflector.
func (listThenWatch) IsWatchListSemanticsUnSupported() bool { return true }

// Pod is pod i of a ReplicaSet-owned, running workload at resourceVersion
// rv: two containers on every third, status from a kubelet, and the
// managedFields of both writers, about 4 KB in protobuf as on a cluster.
func Pod(i, rv int) *corev1.Pod {
	app := fmt.Sprintf("svc-%04d", i/10)
	hash := fmt.Sprintf("%010x", uint64(i/10)*2654435761)[:10]
	container := func(name, image string, port int32) corev1.Container {
		return corev1.Container{
			Name: name, Image: image,
			Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: port, Protocol: corev1.ProtocolTCP}},
			Env: []corev1.EnvVar{
				{Name: "APP_NAME", Value: app},
				{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
			},
			Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("256Mi")},
			},
			ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(port)}}, PeriodSeconds: 10},
			VolumeMounts:   []corev1.VolumeMount{{Name: "config", MountPath: "/etc/app"}},
		}
	}
	containers := []corev1.Container{container("app", "registry.example.com/shop/"+app+":1.4.2", 8080)}
	if i%3 == 0 {
		containers = append(containers, container("proxy", "envoyproxy/envoy:v1.31.0", 15001))
	}
	now := metav1.Unix(1_790_000_000, 0)
	yes := true
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "ns-" + strconv.Itoa(i%20), Name: fmt.Sprintf("%s-%s-%05d", app, hash, i),
			UID:             types.UID(fmt.Sprintf("5f0c1e2d-0000-4000-8000-%012d", i)),
			ResourceVersion: strconv.Itoa(rv), CreationTimestamp: now,
			Labels: map[string]string{"app.kubernetes.io/name": app, "app.kubernetes.io/part-of": "shop", "pod-template-hash": hash},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: app + "-" + hash,
				UID: types.UID(fmt.Sprintf("8d6c7a3e-0000-4000-8000-%012d", i/10)), Controller: &yes, BlockOwnerDeletion: &yes}},
			ManagedFields: []metav1.ManagedFieldsEntry{
				{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &now,
					FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{"f:labels":{".":{},"f:app.kubernetes.io/name":{},"f:app.kubernetes.io/part-of":{},"f:pod-template-hash":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"8d6c7a3e\"}":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:env":{".":{},"k:{\"name\":\"APP_NAME\"}":{".":{},"f:name":{},"f:value":{}}},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:ports":{},"f:readinessProbe":{},"f:resources":{},"f:volumeMounts":{}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{},"f:volumes":{}}}`)},
				{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &now, Subresource: "status",
					FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:status":{"f:conditions":{"k:{\"type\":\"ContainersReady\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Initialized\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Ready\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}}},"f:containerStatuses":{},"f:hostIP":{},"f:hostIPs":{},"f:phase":{},"f:podIP":{},"f:podIPs":{".":{},"k:{\"ip\":\"10.100.0.1\"}":{".":{},"f:ip":{}}},"f:startTime":{}}}`)},
			},
		},
		Spec: corev1.PodSpec{
			Containers: containers, NodeName: fmt.Sprintf("node-%02d", i%50),
			Volumes: []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: app + "-config-0"}}}}},
		},
	}
	ip := fmt.Sprintf("10.%d.%d.%d", 100+i/65536, i/256%256, i%256)
	cond := func(t corev1.PodConditionType) corev1.PodCondition {
		return corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, LastTransitionTime: now}
	}
	p.Status = corev1.PodStatus{
		Phase:      corev1.PodRunning,
		Conditions: []corev1.PodCondition{cond(corev1.PodInitialized), cond(corev1.PodReady), cond(corev1.ContainersReady), cond(corev1.PodScheduled)},
		HostIP:     "192.168.0." + strconv.Itoa(10+i%50), PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}},
		StartTime: &now, QOSClass: corev1.PodQOSBurstable,
	}
	for j, c := range containers {
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, ImageID: c.Image + "@sha256:4b1c9f0e6a5d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0f9e8d7c6b5a4",
			ContainerID: fmt.Sprintf("containerd://%064x", i*2+j), Ready: true, Started: &yes,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
		})
	}
	return p
}
