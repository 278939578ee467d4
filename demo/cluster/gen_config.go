package cluster

import (
	"encoding/base64"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

var logLevels = []string{"debug", "info", "warn", "error"}

// genConfigMap makes an app's configuration or environment ConfigMap.
func genConfigMap(g *generator, ns string, taken func(string) bool) runtime.Object {
	a := g.app(ns)
	cm := &corev1.ConfigMap{
		TypeMeta: typeMeta(corev1.SchemeGroupVersion, "ConfigMap"),
		ObjectMeta: metav1.ObjectMeta{
			Namespace:         ns,
			UID:               g.uid(),
			CreationTimestamp: g.created(),
			Labels:            appLabels(a),
		},
	}
	if g.chance(0.5) {
		cm.Name = uniqueName(ns, a.name+"-config", taken)
		cm.Data = map[string]string{
			"config.yaml": fmt.Sprintf("server:\n  port: %d\n  readTimeout: %ds\nfeatures:\n  newCheckout: %t\n  cacheTTL: %dm\n",
				a.port, 5+g.pick(25), g.chance(0.5), 1+g.pick(60)),
		}
	} else {
		cm.Name = uniqueName(ns, a.name+"-env", taken)
		cm.Data = map[string]string{
			"LOG_LEVEL":       logLevels[g.pick(len(logLevels))],
			"WORKERS":         fmt.Sprint(1 + g.pick(16)),
			"UPSTREAM_URL":    fmt.Sprintf("http://%s.%s.svc.cluster.local:%d", g.app(ns).name, ns, 8080),
			"TRACING_ENABLED": fmt.Sprint(g.chance(0.7)),
		}
	}
	return cm
}

// mutateConfigMap edits one value, as a config rollout would.
func mutateConfigMap(g *generator, obj runtime.Object) runtime.Object {
	cm := obj.(*corev1.ConfigMap).DeepCopy()
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	if _, ok := cm.Data["LOG_LEVEL"]; ok {
		old := cm.Data["LOG_LEVEL"]
		for cm.Data["LOG_LEVEL"] == old {
			cm.Data["LOG_LEVEL"] = logLevels[g.pick(len(logLevels))]
		}
		cm.Data["WORKERS"] = fmt.Sprint(1 + g.pick(16))
		return cm
	}
	cm.Data["revision"] = fmt.Sprintf("%s-%s", g.clock.Now().UTC().Format("20060102T150405"), g.suffix(5))
	return cm
}

// genSecret makes credentials or a TLS pair; its data is fake but looks real,
// so the UI's redaction has something to hide.
func genSecret(g *generator, ns string, taken func(string) bool) runtime.Object {
	a := g.app(ns)
	s := &corev1.Secret{
		TypeMeta: typeMeta(corev1.SchemeGroupVersion, "Secret"),
		ObjectMeta: metav1.ObjectMeta{
			Namespace:         ns,
			UID:               g.uid(),
			CreationTimestamp: g.created(),
			Labels:            appLabels(a),
		},
	}
	if g.chance(0.3) {
		s.Name = uniqueName(ns, a.name+"-tls", taken)
		s.Type = corev1.SecretTypeTLS
		s.Data = map[string][]byte{
			corev1.TLSCertKey:       pemBlock("CERTIFICATE", g.bytes(96)),
			corev1.TLSPrivateKeyKey: pemBlock("PRIVATE KEY", g.bytes(64)),
		}
	} else {
		s.Name = uniqueName(ns, a.name+"-credentials", taken)
		s.Type = corev1.SecretTypeOpaque
		s.Data = map[string][]byte{
			"username": []byte(a.name),
			"password": []byte(g.password()),
		}
	}
	return s
}

// mutateSecret rotates the secret's material.
func mutateSecret(g *generator, obj runtime.Object) runtime.Object {
	s := obj.(*corev1.Secret).DeepCopy()
	if s.Data == nil {
		s.Data = map[string][]byte{}
	}
	if s.Type == corev1.SecretTypeTLS {
		s.Data[corev1.TLSCertKey] = pemBlock("CERTIFICATE", g.bytes(96))
		s.Data[corev1.TLSPrivateKeyKey] = pemBlock("PRIVATE KEY", g.bytes(64))
	} else {
		s.Data["password"] = []byte(g.password())
	}
	if s.Annotations == nil {
		s.Annotations = map[string]string{}
	}
	s.Annotations["informtop.dev/rotated-at"] = g.now().UTC().Format("2006-01-02T15:04:05Z")
	return s
}

func (g *generator) bytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(g.rng.Uint32())
	}
	return b
}

func (g *generator) password() string {
	return base64.RawURLEncoding.EncodeToString(g.bytes(18))
}

func pemBlock(kind string, body []byte) []byte {
	return []byte("-----BEGIN " + kind + "-----\n" + base64.StdEncoding.EncodeToString(body) + "\n-----END " + kind + "-----\n")
}
