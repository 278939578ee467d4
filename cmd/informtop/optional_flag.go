package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// joinOptionalValue lets a flag that may stand alone (NoOptDefVal) still
// take its value as the next word, as the docs write "--watch-list off":
// pflag would read that word as an argument, so it is joined to the flag
// ("--watch-list=off") unless it is a flag, a subcommand or after "--".
func joinOptionalValue(root *cobra.Command, args []string, flag string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if a == flag && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") && !isSubcommand(root, args[i+1]) {
			out = append(out, a+"="+args[i+1])
			i++
			continue
		}
		out = append(out, a)
	}
	return out
}

func isSubcommand(root *cobra.Command, word string) bool {
	for _, c := range root.Commands() {
		if c.Name() == word || c.HasAlias(word) {
			return true
		}
	}
	return false
}
