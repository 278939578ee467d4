package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/informtop/informtop/agent/report"
	"github.com/informtop/informtop/agent/shared/tokenfile"
	"github.com/informtop/informtop/attach/pprof"
)

// newAttachCommand is `informtop attach HOST:PORT`: the dashboard (or one
// report) of the informers inside another process that serves the agent.
func newAttachCommand(stdout, stderr io.Writer) *cobra.Command {
	o := newOptions()
	var token, tokenFile string
	var af attachFlags
	cmd := &cobra.Command{
		Use:   "attach (HOST:PORT | TYPE/NAME[:PORT])",
		Short: "show the informers of another process: its debug agent, or its goroutine dumps (--pprof)",
		Long: `Connects to the debug agent inside a controller (package agent) and shows its informers:
which handler is stuck, since when, in which callback, how far behind. Read-only: the keys that
change a local pipeline (pause, step, stall, faults) are not offered.

A Kubernetes object (pod, deploy, sts, ds, rs or svc, as kubectl port-forward names them) is
reached through the API server of the kubeconfig's context: attach finds a running pod, forwards
to the container port named informtop, https or metrics (or the PORT given, a number or a name)
inside the API server's connection, with no local port, speaks TLS when the port does, and sends
the kubeconfig's own token, as controller-runtime's authenticated metrics server wants. When the
pod goes away, a workload's next pod is found by itself.

A controller without the agent that serves net/http/pprof (kube-controller-manager, kube-scheduler,
most operators) is read from its goroutine dumps and /metrics instead: attach does so when nothing
answers at the agent's path (404), or at once with --pprof. It shows each informer's listeners,
which is inside a callback, the function and line it is in and for at least how long, and the
workqueues; keys, backlogs, queues and caches need the agent (docs/attach-pprof.md).

The token an agent asks for (agent.Options.Token) is taken from --token, else from the file
--token-file names, else from $` + envAttachToken + `. Prefer the file or the variable: every user
of this machine can read --token's value in the process list (ps).`,
		Example: `  informtop attach -n shop deploy/orders-controller
  informtop attach -n shop pod/orders-controller-7d9f-x2x:8443 --path /debug/informtop/
  informtop attach 127.0.0.1:6060
  informtop attach -n kube-system pod/kube-controller-manager-node1:10257 --pprof
  informtop attach controller.example:6060 --token-file ~/.config/informtop/token --once --json
  ` + envAttachToken + `="$(cat token)" informtop attach controller.example:6060`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("attach takes one address or Kubernetes object, e.g. %s 127.0.0.1:6060 or %s -n NS deploy/NAME", cmd.CommandPath(), cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validateCommon(); err != nil {
				return err
			}
			if !o.once && !isTerminal(stdout) {
				return errors.New("stdout is not a terminal, so the dashboard cannot start; use informtop attach ADDR --once for a table or --once --json for JSON")
			}
			tok, err := attachToken(token, tokenFile, os.Getenv)
			if err != nil {
				return err
			}
			ctx, end, err := startSession(o)
			if err != nil {
				return err
			}
			defer end()
			af.fallback = !af.force
			at, err := openAttach(ctx, o, af, args[0], tok)
			if err != nil {
				return err
			}
			src := at.source()
			if at.tunnel != nil {
				defer at.tunnel.Close()
			}
			o.scope = report.Scope{Server: args[0]}
			if at.pprof != nil && o.verify {
				return errors.New("--verify compares the caches an agent hands over; a process read through its goroutine dumps (pprof mode) hands over none: add the agent (docs/agent.md) to verify")
			}
			if !o.verify {
				return present(ctx, src, o, stdout, stderr)
			}
			v := &attachVerifier{src: at.src, flags: o.kubeFlags, allNamespace: o.allNamespaces,
				label: o.selector, field: o.fieldSelector, pageSize: o.pageSize, timeout: o.timeout}
			return present(ctx, withVerifier(src, v), o, stdout, stderr)
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.StringVar(&token, "token", "", "bearer token the agent asks for (agent.Options.Token; through the API server, instead of the kubeconfig's); other users of this machine see it in ps: prefer --token-file or $"+envAttachToken)
	fs.StringVar(&tokenFile, "token-file", "", "file holding the agent's bearer token: a regular file of at most 64 KiB, one trailing newline ignored (--token wins over it, it over $"+envAttachToken+")")
	fs.StringVar(&af.path, "path", "", "with a Kubernetes target: the path the agent's handler is mounted at (default: try /debug/informtop/, then /)")
	fs.BoolVar(&af.force, "pprof", false, "read the target's goroutine dumps (/debug/pprof/goroutine) and /metrics instead of informtop's agent: for a controller that serves pprof but has no agent, such as kube-controller-manager (docs/attach-pprof.md); without it, attach does so when no agent answers (404)")
	fs.DurationVar(&af.every, "dump-interval", pprof.DefaultDumpInterval, "in pprof mode: the time between goroutine dumps, at least 1s (each one stops the target's world while its stacks are written: docs/attach-pprof.md)")
	fs.StringVar(&af.caFile, "agent-ca-file", "", "verify the agent's TLS certificate with the CA certificates in this PEM file (through the API server the certificate is otherwise not verified: docs/security.md says why)")
	fs.BoolVar(&o.once, "once", false, "wait until every remote informer has synced, print one report and exit")
	fs.BoolVar(&o.json, "json", false, "with --once: print the report as JSON")
	fs.DurationVar(&o.timeout, "timeout", 60*time.Second, "with --once: how long to wait for the sync before reporting synced: false")
	fs.DurationVar(&o.duration, "duration", 0, "with --once: wait this long after the sync before reporting")
	fs.DurationVar(&o.failOnStall, "fail-on-stall", 0, "with --once: exit 5 when a handler has been in one callback longer than this, e.g. 30s (0: never)")
	fs.DurationVar(&o.refresh, "refresh", 100*time.Millisecond, "dashboard refresh interval")
	o.addLogFlags(fs, "write client-go's log to this file")
	fs.BoolVar(&o.verify, "verify", false, "compare the controller's caches with the API server, listed from here with the kubeconfig flags (LIST only): with --once each informer, exit 3 when one differs, 4 when one could not be compared (a check not made); in the dashboard v verifies the current informer")
	fs.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "with --verify: the controller's informers watch every namespace (the default unless -n is given)")
	fs.StringVarP(&o.selector, "selector", "l", "", "with --verify: the label selector the controller's informers use")
	fs.StringVar(&o.fieldSelector, "field-selector", "", "with --verify: the field selector the controller's informers use")
	fs.Int64Var(&o.pageSize, "page-size", 0, "with --verify: list the server in pages of N (default 500)")
	// kubectl's connection flags for --verify's lists; --token is the
	// agent's here, so the API server's token comes from the kubeconfig.
	o.kubeFlags.BearerToken = nil
	o.kubeFlags.AddFlags(fs)
	expect(fs, "page-size", "a whole number of objects per page, e.g. 500")
	expect(fs, "dump-interval", "a duration of at least 1s, e.g. 5s or 30s")
	o.expectCommon(fs)
	return cmd
}

// envAttachToken holds the agent's token for attach when neither --token
// nor --token-file is given: unlike a flag, the environment of a process
// is readable only by its user.
const envAttachToken = "INFORMTOP_ATTACH_TOKEN"

// attachToken picks the agent's token: flag (--token), else the file
// (--token-file), else $INFORMTOP_ATTACH_TOKEN, else none. Each is
// checked, so a token the agent could never match is a sentence here,
// not a 401 there.
func attachToken(flag, file string, getenv func(string) string) (string, error) {
	tok, from := flag, "--token"
	switch {
	case flag != "":
	case file != "":
		t, err := tokenfile.Read(file)
		if err != nil {
			return "", fmt.Errorf("--token-file: %w", err)
		}
		return t, nil
	default:
		tok, from = getenv(envAttachToken), "$"+envAttachToken
	}
	if tok == "" {
		return "", nil
	}
	if err := tokenfile.Check(tok); err != nil {
		return "", fmt.Errorf("%s: %w", from, err)
	}
	return tok, nil
}
