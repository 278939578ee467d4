package main

import (
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// pluginPrefix is how kubectl finds plugins on PATH: kubectl-NAME runs as
// `kubectl NAME`.
const pluginPrefix = "kubectl-"

// commandName is what the user typed to run argv0: "kubectl informtop"
// when installed as the plugin kubectl-informtop, "informtop" otherwise.
func commandName(argv0 string) string {
	base := strings.TrimSuffix(filepath.Base(argv0), ".exe")
	if plugin, ok := strings.CutPrefix(base, pluginPrefix); ok && plugin != "" {
		// kubectl maps "-" in a command to "_" in the file name:
		// kubectl-foo_bar is `kubectl foo-bar`.
		return "kubectl " + strings.ReplaceAll(plugin, "_", "-")
	}
	return "informtop"
}

// asPlugin makes usage lines, examples and error hints name the command as
// the user typed it, using cobra's display-name annotation for plugins.
func asPlugin(root *cobra.Command, name string) {
	if name == "" || name == root.Name() {
		return
	}
	if root.Annotations == nil {
		root.Annotations = map[string]string{}
	}
	root.Annotations[cobra.CommandDisplayNameAnnotation] = name
	var rename func(c *cobra.Command)
	rename = func(c *cobra.Command) {
		c.Example = strings.ReplaceAll(c.Example, "  "+root.Name()+" ", "  "+name+" ")
		for _, sub := range c.Commands() {
			rename(sub)
		}
	}
	rename(root)
}
