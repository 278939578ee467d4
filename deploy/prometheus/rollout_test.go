package prometheus_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"
)

// monitor is what the rollout test reads of a PodMonitor or ServiceMonitor.
type monitor struct {
	Spec struct {
		Selector struct {
			MatchLabels map[string]string `json:"matchLabels"`
		} `json:"selector"`
		JobLabel  string     `json:"jobLabel"`
		Endpoints []endpoint `json:"podMetricsEndpoints"`
		Service   []endpoint `json:"endpoints"`
	} `json:"spec"`
}

type endpoint struct {
	Port          string `json:"port"`
	Authorization struct {
		Credentials struct {
			Name string `json:"name"`
			Key  string `json:"key"`
		} `json:"credentials"`
	} `json:"authorization"`
}

// readObjects decodes each YAML document of a file of deploy/scrape into
// the object of the same index.
func readObjects(t *testing.T, file string, into ...any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(scrapeDir, file))
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(string(data), "\n---\n")
	if len(docs) != len(into) {
		t.Fatalf("%s has %d objects, want %d", file, len(docs), len(into))
	}
	for i, d := range docs {
		// Leniently: the API server's strict validation is
		// TestOperatorObjectsMatchTheCRDs'.
		if err := yaml.Unmarshal([]byte(d), into[i]); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
}

// The example Deployment is what the manifests select, as someone applying
// them to a controller of their own would copy it: the PodMonitor's
// selector and jobLabel match its pod template's labels, and its port is a
// container port; the Service selects the same pods, its target port is
// that port, and the ServiceMonitor selects the Service; the plain scrape
// job keeps pods by the same port name and takes job from the same label;
// the Secret Prometheus is given (its name and key) is the one mounted
// where the controller's metrics token flag reads it.
func TestRolloutManifestsSelectTheExampleDeployment(t *testing.T) {
	var d appsv1.Deployment
	var secret corev1.Secret
	var pm, sm monitor
	var svc corev1.Service
	readObjects(t, "deployment.yaml", &d)
	readObjects(t, "secret.yaml", &secret)
	readObjects(t, "podmonitor.yaml", &pm)
	readObjects(t, "servicemonitor.yaml", &svc, &sm)

	tmpl := labels.Set(d.Spec.Template.Labels)
	if !labels.SelectorFromSet(d.Spec.Selector.MatchLabels).Matches(tmpl) {
		t.Fatalf("the Deployment's selector %v does not select its own pods %v", d.Spec.Selector.MatchLabels, tmpl)
	}
	if len(d.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("the Deployment has %d containers, want the controller's one", len(d.Spec.Template.Spec.Containers))
	}
	ctr := d.Spec.Template.Spec.Containers[0]
	hasPort := func(name string) bool {
		return slices.ContainsFunc(ctr.Ports, func(p corev1.ContainerPort) bool { return p.Name == name })
	}

	if !labels.SelectorFromSet(pm.Spec.Selector.MatchLabels).Matches(tmpl) {
		t.Errorf("the PodMonitor selects %v; the Deployment's pods are %v", pm.Spec.Selector.MatchLabels, tmpl)
	}
	if _, ok := tmpl[pm.Spec.JobLabel]; !ok {
		t.Errorf("the PodMonitor's jobLabel %s is not a label of the Deployment's pods", pm.Spec.JobLabel)
	}
	if len(pm.Spec.Endpoints) != 1 || !hasPort(pm.Spec.Endpoints[0].Port) {
		t.Errorf("the PodMonitor scrapes ports %v; the controller's are %v", pm.Spec.Endpoints, ctr.Ports)
	}

	if !labels.SelectorFromSet(svc.Spec.Selector).Matches(tmpl) || svc.Namespace != d.Namespace {
		t.Errorf("the Service selects %v in %s; the Deployment's pods are %v in %s", svc.Spec.Selector, svc.Namespace, tmpl, d.Namespace)
	}
	if len(svc.Spec.Ports) != 1 || !hasPort(svc.Spec.Ports[0].TargetPort.String()) {
		t.Errorf("the Service's target port is not the controller's: %v", svc.Spec.Ports)
	}
	if !labels.SelectorFromSet(sm.Spec.Selector.MatchLabels).Matches(labels.Set(svc.Labels)) {
		t.Errorf("the ServiceMonitor selects %v; the Service is labelled %v", sm.Spec.Selector.MatchLabels, svc.Labels)
	}
	if svc.Labels[sm.Spec.JobLabel] != tmpl[pm.Spec.JobLabel] {
		t.Errorf("the ServiceMonitor's job (the Service's %s label, %q) is not the PodMonitor's (%q): one controller would be two jobs", sm.Spec.JobLabel, svc.Labels[sm.Spec.JobLabel], tmpl[pm.Spec.JobLabel])
	}
	if len(sm.Spec.Service) != 1 || sm.Spec.Service[0].Port != svc.Spec.Ports[0].Name {
		t.Errorf("the ServiceMonitor scrapes %v; the Service's port is %s", sm.Spec.Service, svc.Spec.Ports[0].Name)
	}

	// The plain scrape job: the same port name, job from the same label.
	cfg, err := os.ReadFile(filepath.Join(scrapeDir, "prometheus.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if port := pm.Spec.Endpoints[0].Port; !strings.Contains(string(cfg), "regex: "+port+"\n") {
		t.Errorf("prometheus.yaml does not keep pods by the port %s", port)
	}
	if meta := "__meta_kubernetes_pod_label_" + strings.NewReplacer(".", "_", "/", "_", "-", "_").Replace(pm.Spec.JobLabel); !strings.Contains(string(cfg), meta) {
		t.Errorf("prometheus.yaml takes job from another label than %s (%s)", pm.Spec.JobLabel, meta)
	}

	// The token Prometheus sends is the Secret's key mounted where the
	// controller reads its metrics token.
	for _, e := range append(pm.Spec.Endpoints, sm.Spec.Service...) {
		if c := e.Authorization.Credentials; c.Name != secret.Name {
			t.Errorf("a monitor sends the Secret %s's key, the shipped Secret is %s", c.Name, secret.Name)
		} else if _, ok := secret.StringData[c.Key]; !ok {
			t.Errorf("a monitor sends the key %s, which the Secret has not", c.Key)
		}
	}
	key := pm.Spec.Endpoints[0].Authorization.Credentials.Key
	var mounted string
	for _, v := range d.Spec.Template.Spec.Volumes {
		if v.Secret != nil && v.Secret.SecretName == secret.Name {
			for _, m := range ctr.VolumeMounts {
				if m.Name == v.Name {
					mounted = filepath.Join(m.MountPath, key)
				}
			}
		}
	}
	if mounted == "" || !slices.Contains(ctr.Args, "--agent-metrics-token-file="+mounted) {
		t.Errorf("the controller reads its metrics token from %v; the Secret Prometheus sends is mounted at %q", ctr.Args, mounted)
	}
	// Off loopback: a scraper reaches the pod's address.
	for _, a := range ctr.Args {
		if addr, ok := strings.CutPrefix(a, "--agent-addr="); ok && strings.HasPrefix(addr, "127.") {
			t.Errorf("the agent listens on %s, which Prometheus cannot reach", addr)
		}
	}
}
