package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// clientGoRequired reads the client-go version go.mod asks for, so the
// version tests compare with the module file, not with what they test.
func clientGoRequired(t *testing.T) string {
	t.Helper()
	f, err := os.Open("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == clientGoPath {
			return fields[1]
		}
	}
	t.Fatal("go.mod does not require k8s.io/client-go")
	return ""
}

// `informtop version` and `--version` print informtop's version, the
// client-go it was built with and Go's.
func TestVersionCommandAndFlag(t *testing.T) {
	want := []string{"informtop devel\n", "client-go " + clientGoRequired(t) + "\n", runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH}
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d, stderr %q", args, code, stderr)
		}
		for _, w := range want {
			if !strings.Contains(stdout, w) {
				t.Errorf("%v: output lacks %q:\n%s", args, w, stdout)
			}
		}
	}
	if code, _, stderr := runCLI(t, "version", "extra"); code != 2 || !strings.Contains(stderr, `version takes no arguments (got "extra")`) {
		t.Errorf("version extra: exit %d, stderr %q", code, stderr)
	}
}

// The stamp wins; without one, the module version go install recorded;
// a local build's "(devel)" reads "devel"; a replaced client-go reports
// the version that was built.
func TestReadVersions(t *testing.T) {
	deps := []*debug.Module{{Path: "k8s.io/api", Version: "v0.1.0"}, {Path: clientGoPath, Version: "v0.37.0"}}
	bi := &debug.BuildInfo{GoVersion: "go1.99", Main: debug.Module{Version: "v1.4.0"}, Deps: deps}
	cases := []struct {
		stamp string
		bi    *debug.BuildInfo
		ok    bool
		want  buildVersions
	}{
		{"v2.0.0-rc1", bi, true, buildVersions{"v2.0.0-rc1", "v0.37.0", "go1.99"}},
		{"", bi, true, buildVersions{"v1.4.0", "v0.37.0", "go1.99"}},
		{"", &debug.BuildInfo{GoVersion: "go1.99", Main: debug.Module{Version: "(devel)"}}, true, buildVersions{"devel", "unknown", "go1.99"}},
		{"", nil, false, buildVersions{"devel", "unknown", runtime.Version()}},
		{"", &debug.BuildInfo{GoVersion: "go1.99", Deps: []*debug.Module{{Path: clientGoPath, Version: "v0.37.0", Replace: &debug.Module{Path: "../client-go", Version: "v0.38.0-alpha"}}}}, true,
			buildVersions{"devel", "v0.38.0-alpha", "go1.99"}},
	}
	for i, c := range cases {
		if got := readVersions(c.stamp, c.bi, c.ok); got != c.want {
			t.Errorf("case %d: %+v, want %+v", i, got, c.want)
		}
	}
}

// make build stamps the version given to it into the binary.
func TestMakeBuildStampsVersion(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "informtop")
	build := exec.Command("make", "-C", "../..", "build", "VERSION=v9.8.7-test", "BIN="+bin)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), "informtop v9.8.7-test\nclient-go "+clientGoRequired(t)+"\n") {
		t.Fatalf("version of the stamped binary:\n%s", out)
	}
}

// `informtop help` is the help, with exit code 0.
func TestHelpCommand(t *testing.T) {
	code, stdout, stderr := runCLI(t, "help")
	if code != 0 || !strings.Contains(stdout, "Usage:\n  informtop [flags]") || !strings.Contains(stdout, "--log-file") {
		t.Fatalf("help: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
}

// Extra arguments to scenarios are an error, not silently dropped.
func TestScenariosTakesNoArguments(t *testing.T) {
	code, stdout, stderr := runCLI(t, "scenarios", "burst")
	if code != 2 || stdout != "" || !strings.Contains(stderr, `scenarios takes no arguments (got "burst"): it lists every scenario; pick one with --scenario NAME`) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// A value a flag cannot parse is reported as a sentence saying what the
// flag takes, never as strconv's or time's error.
func TestBadFlagValuesAreSentences(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--rate", "abc"}, `invalid value "abc" for --rate: a number of changes per second, e.g. 50`},
		{[]string{"--seed", "1.5"}, `invalid value "1.5" for --seed: a whole number, e.g. 42`},
		{[]string{"--page-size", "lots"}, `invalid value "lots" for --page-size: a whole number of objects per page, e.g. 500`},
		{[]string{"--timeout", "5"}, `invalid value "5" for --timeout: a duration such as 30s or 2m`},
		{[]string{"--duration", "soon"}, `invalid value "soon" for --duration: a duration such as 5s or 1m`},
		{[]string{"--refresh", "fast"}, `invalid value "fast" for --refresh: a duration such as 100ms or 1s`},
		{[]string{"--queue", "LIFO"}, `invalid value "LIFO" for --queue: RealFIFO or DeltaFIFO`},
		{[]string{"--watch-list", "maybe"}, `invalid value "maybe" for --watch-list: auto, on or off`},
		{[]string{"--once=maybe"}, `invalid value "maybe" for --once: true or false (--once alone means true)`},
		{[]string{"-v", "x", "--log-file", "f"}, `invalid value "x" for --v: a verbosity level from 0 to 10, e.g. 4`},
		{[]string{"--insecure-skip-tls-verify=yes please"}, `invalid value "yes please" for --insecure-skip-tls-verify: true or false`},
		{[]string{"--rate"}, `--rate needs a value: a number of changes per second, e.g. 50`},
		{[]string{"-r"}, `--resource needs a value: resources to watch as kubectl names them`},
		{[]string{"attach", "127.0.0.1:1", "--timeout", "ten"}, `invalid value "ten" for --timeout: a duration such as 30s or 2m`},
		{[]string{"--no-such-flag"}, `unknown flag --no-such-flag for informtop; run informtop --help for the flags`},
		{[]string{"-v", "3"}, `-v sets how much of client-go's log goes to --log-file`},
		{[]string{"-v", "11", "--log-file", "f"}, `-v 11 is out of range`},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
		for _, raw := range []string{"strconv.", "time: ", "invalid argument"} {
			if strings.Contains(stderr, raw) {
				t.Errorf("%v: stderr shows Go's own error %q: %s", c.args, raw, stderr)
			}
		}
	}
}
