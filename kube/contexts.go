package kube

import (
	"maps"
	"slices"

	"k8s.io/cli-runtime/pkg/genericclioptions"
)

// Contexts lists the kubeconfig's contexts, sorted, for ":ctx".
func Contexts(flags *genericclioptions.ConfigFlags) ([]string, error) {
	raw, err := flags.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return nil, kubeconfigError(err)
	}
	return slices.Sorted(maps.Keys(raw.Contexts)), nil
}

// InContext is flags for another context of the same kubeconfig, as
// ":ctx NAME" connects: the kubeconfig, the cache, impersonation and the
// request timeout are kept; the namespace is the new context's own, and
// flags that name a cluster or credentials (--server, --user, --token…)
// are dropped, since they belong to the context they were given with.
func InContext(flags *genericclioptions.ConfigFlags, name string) *genericclioptions.ConfigFlags {
	f := genericclioptions.NewConfigFlags(true)
	f.KubeConfig, f.CacheDir = flags.KubeConfig, flags.CacheDir
	f.Impersonate, f.ImpersonateUID, f.ImpersonateGroup, f.ImpersonateUserExtra = flags.Impersonate, flags.ImpersonateUID, flags.ImpersonateGroup, flags.ImpersonateUserExtra
	f.Timeout, f.DisableCompression, f.WrapConfigFn = flags.Timeout, flags.DisableCompression, flags.WrapConfigFn
	f.Context = &name
	return f
}

// Watched names the resources the source watches now, its ":svc"s
// included, as New takes them: what another context's source watches.
func (s *Source) Watched() []string {
	var out []string
	for _, e := range s.Informers() {
		out = append(out, e.Name())
	}
	return out
}
