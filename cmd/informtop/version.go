package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is stamped at build time (make build:
// -ldflags "-X main.version=$(git describe ...)"); empty in a plain go build.
var version string

// buildVersions are the three versions a bug report needs: informtop's,
// the client-go it was built with (its reflector is the one that runs),
// and Go's.
type buildVersions struct {
	informtop, clientGo, goVersion string
}

const clientGoPath = "k8s.io/client-go"

// readVersions prefers the stamp, then the module version the go command
// recorded (go install …@v1.2.3), then "devel".
func readVersions(stamp string, bi *debug.BuildInfo, ok bool) buildVersions {
	v := buildVersions{informtop: stamp, clientGo: "unknown", goVersion: runtime.Version()}
	if ok && bi != nil {
		if v.informtop == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v.informtop = bi.Main.Version
		}
		if bi.GoVersion != "" {
			v.goVersion = bi.GoVersion
		}
		for _, d := range bi.Deps {
			if d.Path != clientGoPath {
				continue
			}
			v.clientGo = d.Version
			if d.Replace != nil && d.Replace.Version != "" {
				v.clientGo = d.Replace.Version
			}
		}
	}
	if v.informtop == "" {
		v.informtop = "devel"
	}
	return v
}

func currentVersions() buildVersions {
	bi, ok := debug.ReadBuildInfo()
	return readVersions(version, bi, ok)
}

func (v buildVersions) String() string {
	return fmt.Sprintf("informtop %s\nclient-go %s\n%s %s/%s\n", v.informtop, v.clientGo, v.goVersion, runtime.GOOS, runtime.GOARCH)
}

func newVersionCommand(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "print informtop's version, the client-go it was built with, and Go's",
		Args:  noArgs("it prints the version"),
		Run: func(*cobra.Command, []string) {
			fmt.Fprint(stdout, currentVersions())
		},
	}
}
