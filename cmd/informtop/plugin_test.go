package main

import (
	"bytes"
	"strings"
	"testing"
)

// kubectl runs kubectl-informtop as `kubectl informtop`; the binary
// recognises the name it was installed under.
func TestCommandName(t *testing.T) {
	cases := map[string]string{
		"informtop":                         "informtop",
		"./bin/informtop":                   "informtop",
		"/usr/local/bin/kubectl-informtop":  "kubectl informtop",
		"kubectl-informtop.exe":             "kubectl informtop",
		"/home/me/bin/kubectl-inform_top":   "kubectl inform-top",
		"/home/me/bin/kubectl-":             "informtop",
		"/opt/informtop/informtop-v1-linux": "informtop",
	}
	for argv0, want := range cases {
		if got := commandName(argv0); got != want {
			t.Errorf("commandName(%q) = %q, want %q", argv0, got, want)
		}
	}
}

// Installed as a kubectl plugin, usage lines, examples and hints read
// `kubectl informtop …`, the way the user runs it.
func TestPluginUsage(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := runAs("kubectl informtop", []string{"--help"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	help := out.String()
	for _, want := range []string{"Usage:\n  kubectl informtop [flags]\n  kubectl informtop [command]", "  kubectl informtop -A -r pods,deploy,configmaps", `Use "kubectl informtop [command] --help"`} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q:\n%s", want, help)
		}
	}
	if strings.Contains(strings.ReplaceAll(help, "kubectl informtop", ""), "  informtop ") {
		t.Errorf("help still shows a bare informtop command line:\n%s", help)
	}
	out.Reset()
	if code := runAs("kubectl informtop", []string{"attach", "--help"}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "  kubectl informtop attach 127.0.0.1:6060") {
		t.Errorf("attach help (exit %d):\n%s", code, out.String())
	}
	errOut.Reset()
	if code := runAs("kubectl informtop", []string{"--rat", "5"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "run kubectl informtop --help for the flags") {
		t.Errorf("flag error hint (exit %d): %q", code, errOut.String())
	}
}
