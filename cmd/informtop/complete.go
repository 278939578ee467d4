package main

import (
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/klog/v2"

	"github.com/informtop/informtop/demo"
	"github.com/informtop/informtop/kube"
)

// completionTimeout bounds each discovery request of a completion when
// --request-timeout does not: a shell waiting on a silent server for
// longer than this is worse than no suggestions.
const completionTimeout = 5 * time.Second

// registerCompletions teaches cobra's completion (informtop completion
// bash|zsh|fish) the values of informtop's flags: resources from the
// chosen cluster's discovery, contexts, clusters and users from the
// kubeconfig, scenario names and the words of the enum flags.
func registerCompletions(root *cobra.Command, o *options) {
	must := func(err error) {
		if err != nil {
			panic(err) // a misspelt flag name is a programming error
		}
	}
	fs := root.Flags()
	must(root.RegisterFlagCompletionFunc("scenario", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, s := range demo.Scenarios() {
			out = append(out, s.Name+"\t"+s.Summary)
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}))
	must(root.RegisterFlagCompletionFunc("resource", func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return completeResources(o, toComplete)
	}))
	for flag, pick := range map[string]func(kubeconfigNames) []string{
		"context": func(k kubeconfigNames) []string { return k.contexts },
		"cluster": func(k kubeconfigNames) []string { return k.clusters },
		"user":    func(k kubeconfigNames) []string { return k.users },
	} {
		must(root.RegisterFlagCompletionFunc(flag, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return pick(readKubeconfigNames(o)), cobra.ShellCompDirectiveNoFileComp
		}))
	}
	registerValueCompletions(root, fs)
	for _, sub := range root.Commands() {
		if sub.ValidArgsFunction == nil {
			sub.ValidArgsFunction = cobra.NoFileCompletions
		}
		registerValueCompletions(sub, sub.Flags())
	}
}

// registerValueCompletions offers an enum flag's words, and no file names
// for flags that take a number or a duration.
func registerValueCompletions(cmd *cobra.Command, fs *pflag.FlagSet) {
	fs.VisitAll(func(f *pflag.Flag) {
		if _, done := cmd.GetFlagCompletionFunc(f.Name); done {
			return
		}
		var fn cobra.CompletionFunc
		if c, ok := f.Value.(*choiceValue); ok {
			fn = cobra.FixedCompletions(c.choices, cobra.ShellCompDirectiveNoFileComp)
		} else if len(f.Annotations[expectsAnnotation]) > 0 {
			fn = cobra.NoFileCompletions
		}
		if fn != nil {
			if err := cmd.RegisterFlagCompletionFunc(f.Name, fn); err != nil {
				panic(err)
			}
		}
	})
}

// completeResources completes the last name of a comma-separated -r list
// from discovery of the cluster the other flags point at.
func completeResources(o *options, toComplete string) ([]string, cobra.ShellCompDirective) {
	// client-go logs a failed discovery to stderr by default, which the
	// shell would print over the command line.
	klog.SetLogger(logr.Discard())
	timeout := completionTimeout
	if t := o.kubeFlags.Timeout; t != nil {
		if d, err := time.ParseDuration(*t); err == nil && d > 0 {
			timeout = d
		}
	}
	names, err := kube.ResourceNames(o.kubeFlags, timeout)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	done, last := "", toComplete
	if i := strings.LastIndex(toComplete, ","); i >= 0 {
		done, last = toComplete[:i+1], toComplete[i+1:]
	}
	already := strings.Split(done, ",")
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, last) && !slices.Contains(already, n) {
			out = append(out, done+n)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

type kubeconfigNames struct{ contexts, clusters, users []string }

// readKubeconfigNames reads the kubeconfig as --kubeconfig and KUBECONFIG
// choose it; nothing when it cannot be read.
func readKubeconfigNames(o *options) kubeconfigNames {
	raw, err := o.kubeFlags.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return kubeconfigNames{}
	}
	var k kubeconfigNames
	for name := range raw.Contexts {
		k.contexts = append(k.contexts, name)
	}
	for name := range raw.Clusters {
		k.clusters = append(k.clusters, name)
	}
	for name := range raw.AuthInfos {
		k.users = append(k.users, name)
	}
	slices.Sort(k.contexts)
	slices.Sort(k.clusters)
	slices.Sort(k.users)
	return k
}
