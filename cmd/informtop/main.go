// Command informtop is "top for informers": a terminal dashboard of an
// instrumented Kubernetes informer pipeline.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"

	"github.com/informtop/informtop/agent/shared/termsafe"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/tui"
)

func main() {
	os.Exit(runAs(commandName(os.Args[0]), os.Args[1:], os.Stdout, os.Stderr))
}

// exitError carries an exit code other than exitBadInput out of a command.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// run is main without the process: it returns the exit code (exitCodes,
// in the order they win when several apply). The dashboard reads the
// keyboard from the terminal itself.
func run(args []string, stdout, stderr io.Writer) int {
	return runAs("informtop", args, stdout, stderr)
}

// runAs is run under the name the binary was called by: "kubectl informtop"
// when kubectl started it as the plugin kubectl-informtop.
func runAs(name string, args []string, stdout, stderr io.Writer) int {
	root := newRootCommand(name, stdout, stderr)
	root.SetArgs(joinOptionalValue(root, args, "--watch-list"))
	err := root.Execute()
	var exit exitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &exit):
		return exit.code
	}
	// An error may quote the API server, a kubeconfig or an agent.
	fmt.Fprintf(stderr, "informtop: %s\n", termsafe.String(err.Error()))
	return exitBadInput
}

func newRootCommand(name string, stdout, stderr io.Writer) *cobra.Command {
	o := newOptions()
	vs := currentVersions()
	root := &cobra.Command{
		Use:   "informtop",
		Short: "top for informers: the live internals of a Kubernetes informer pipeline",
		Long: `informtop — top for informers

Runs an instrumented informer pipeline (reflector → queue → indexer → handlers)
and shows its internals live. With a kubeconfig it watches your cluster
(read-only: list and watch); without one, or with --demo, the embedded demo.`,
		Example: `  informtop                                 pods in the current context's namespace
  informtop -A -r pods,deploy,configmaps    three informers over every namespace
  informtop --context prod -r widgets.example.com --metadata-only --listener slow=20ms
  informtop --demo --scenario expired       a 410 Gone, a relist and its tombstones
  informtop --once --json -A -r pods        wait for the sync, print the JSON report (docs/report.md)`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("unexpected argument %q; run %s --help for usage", args[0], cmd.CommandPath())
			}
			return nil
		},
		ValidArgsFunction: cobra.NoFileCompletions,
		SilenceErrors:     true,
		SilenceUsage:      true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.version {
				fmt.Fprint(stdout, vs)
				return nil
			}
			return runRoot(cmd, o, stdout, stderr)
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(flagError)
	o.addFlags(root.Flags())
	// --version is informtop's own flag, not cobra's: cobra prints a custom
	// version through text/template, which looks methods up by name, so the
	// linker would keep every exported method of every type (kubectl's typed
	// clients, apply configurations…): with prometheus/common's HTTP client
	// (see source/fleet/auth.go) that was 30 MB more binary, mapped into
	// every run. TestBinaryLetsTheLinkerDropUnusedMethods guards it.
	root.Flags().BoolVar(&o.version, "version", false, "print informtop's version, the client-go it was built with, and Go's")
	root.AddCommand(&cobra.Command{
		Use:   "scenarios",
		Short: "list the demo scenarios",
		Args:  noArgs("it lists every scenario; pick one with --scenario NAME"),
		Run:   func(*cobra.Command, []string) { printScenarios(stdout) },
	}, newAttachCommand(stdout, stderr),
		newFleetCommand(stdout, stderr), newRecordCommand(stdout, stderr), newReplayCommand(stdout, stderr), newVersionCommand(stdout))
	registerCompletions(root, o)
	asPlugin(root, name)
	return root
}

func runRoot(cmd *cobra.Command, o *options, stdout, stderr io.Writer) error {
	if err := o.validate(cmd.Flags()); err != nil {
		return err
	}
	ctx, end, err := startSession(o)
	if err != nil {
		return err
	}
	defer end()
	// informtop's own informers survive a panicking handler and show it
	// (its panics count); a drop-in use elsewhere keeps client-go's default.
	utilruntime.ReallyCrash = false
	if !o.once && !isTerminal(stdout) {
		return errors.New("stdout is not a terminal, so the dashboard cannot start; use informtop --once for a table or informtop --once --json for JSON")
	}
	src, err := chooseSource(ctx, o, cmd.Flags())
	if err != nil {
		return err
	}
	o.scope = src.scope
	if src.kube != nil && o.once {
		if note := src.kube.NamespaceNote(); note != "" {
			fmt.Fprintf(stderr, "informtop: %s\n", termsafe.String(note)) // the dashboard shows it among its notes
		}
	}
	return present(ctx, src, o, stdout, stderr)
}

// present runs src with --once's report or the dashboard, and turns what
// happened into the exit code.
func present(ctx context.Context, src source.Source, o *options, stdout, stderr io.Writer) error {
	if o.once {
		if code := runOnce(ctx, src, o, stdout, stderr); code != 0 {
			return exitError{code}
		}
		return nil
	}
	// A key map that cannot be used is bad input, said before the
	// dashboard starts rather than as its failure.
	if err := tui.CheckKeyMap(""); err != nil {
		return err
	}
	if err := runDashboard(ctx, src, o); err != nil {
		fmt.Fprintf(stderr, "informtop: %s\n", termsafe.String(err.Error()))
		return exitError{exitNotSynced}
	}
	return nil
}
