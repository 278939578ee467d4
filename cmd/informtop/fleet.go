package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/informtop/informtop/agent/report"
	"github.com/informtop/informtop/agent/shared/termsafe"
	"github.com/informtop/informtop/agent/shared/tokenfile"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/source/fleet"
)

// envPrometheusURL is --prometheus's default.
const envPrometheusURL = "INFORMTOP_PROMETHEUS_URL"

// fleetFlags are `informtop fleet`'s own flags.
type fleetFlags struct {
	url, selector, agentLabel       string
	clusterLabel                    string
	tokenFile, caFile, certFile     string
	keyFile, basicUser, basicPwFile string
	agentTokenFile                  string
	contextLabel, agentPathLabel    string
	agentPath                       string
	agentDirect                     []string
	clusterContexts                 map[string]string
	insecure                        bool
	every                           time.Duration
}

// newFleetCommand is `informtop fleet --prometheus URL`: every controller
// process, informer and listener a Prometheus knows from informtop's
// agents, worst first.
func newFleetCommand(stdout, stderr io.Writer) *cobra.Command {
	o := newOptions()
	var ff fleetFlags
	cmd := &cobra.Command{
		Use:   "fleet --prometheus URL",
		Short: "list every controller a Prometheus scrapes informtop's agents in, worst first",
		Long: `Asks a Prometheus (or Thanos, Mimir) that scrapes informtop's agents for their series and lists every
controller process, informer and listener it knows, worst first: a handler stalled in one callback,
then a backlog, an informer not synced, one stale (silent), a process Prometheus cannot scrape.
Read-only. Enter on a process attaches to its agent, at the address the target label --agent-label
holds (instance by default: the agent serves /metrics and its API on one address).

With --once it waits for the first answer (within --timeout) and prints the table, or with --json the
document docs/fleet.md describes. Exit codes:
  0  every process up, every informer and handler registration synced
  1  a process is down or something has not synced (a stalled handler usually is why), or no answer
     came within --timeout
  2  bad input, or Prometheus cannot be read (nothing listens, credentials refused, no informtop series)
  5  with --fail-on-stall D: a handler has been in one callback longer than D`,
		Example: `  informtop fleet --prometheus http://prometheus:9090
  informtop fleet --prometheus https://thanos.example --selector 'cluster=~"eu.*",namespace="shop"' --bearer-token-file token
  informtop fleet --prometheus http://127.0.0.1:9090 --once --json`,
		Args: noArgs("give Prometheus' address with --prometheus URL"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.validateCommon(); err != nil {
				return err
			}
			if ff.url == "" {
				ff.url = os.Getenv(envPrometheusURL)
			}
			if ff.url == "" {
				return errors.New("no Prometheus to ask: give --prometheus URL (e.g. http://prometheus:9090) or set $" + envPrometheusURL)
			}
			if !o.once && !isTerminal(stdout) {
				return errors.New("stdout is not a terminal, so the dashboard cannot start; use informtop fleet --once for a table or --once --json for JSON")
			}
			src, err := ff.source()
			if err != nil {
				return err
			}
			fa := fleetAttach{kubeFlags: o.kubeFlags, contextLabel: ff.contextLabel, clusters: ff.clusterContexts,
				pathLabel: ff.agentPathLabel, path: ff.agentPath}
			if fa.direct, err = parseDirect(ff.agentDirect); err != nil {
				return err
			}
			if ff.agentTokenFile != "" {
				if len(fa.direct) == 0 {
					return errors.New("--agent-token-file needs --agent-direct naming the addresses the token may go to (hosts, host:port or CIDRs, e.g. --agent-direct 10.0.0.0/8): a target's labels alone never decide where the token goes")
				}
				if fa.token, err = tokenfile.Read(ff.agentTokenFile); err != nil {
					return fmt.Errorf("--agent-token-file: %w", err)
				}
			}
			o.fleetAttach = fa
			ctx, end, err := startSession(o)
			if err != nil {
				return err
			}
			defer end()
			if o.once {
				if code := runFleetOnce(ctx, src, o, ff, stdout, stderr); code != 0 {
					return exitError{code}
				}
				return nil
			}
			return present(ctx, src, o, stdout, stderr)
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.StringVar(&ff.url, "prometheus", "", "Prometheus' HTTP address, with its path prefix if it has one, e.g. http://prometheus:9090 (default $"+envPrometheusURL+")")
	fs.StringVar(&ff.selector, "selector", "", `PromQL label matchers added to every query, e.g. namespace="shop",cluster=~"eu.*"`)
	fs.StringVar(&ff.tokenFile, "bearer-token-file", "", "file holding the bearer token Prometheus asks for, read on every query (so a rotated token is picked up)")
	fs.StringVar(&ff.basicUser, "basic-auth-user", "", "user for HTTP basic auth, with --basic-auth-password-file")
	fs.StringVar(&ff.basicPwFile, "basic-auth-password-file", "", "file holding the HTTP basic auth password")
	fs.StringVar(&ff.caFile, "ca-file", "", "CA certificate(s) to trust for Prometheus' TLS certificate, PEM")
	fs.StringVar(&ff.certFile, "cert-file", "", "client certificate for TLS, PEM, with --key-file")
	fs.StringVar(&ff.keyFile, "key-file", "", "client key for TLS, PEM, with --cert-file")
	fs.BoolVar(&ff.insecure, "insecure-skip-tls-verify", false, "do not check Prometheus' certificate (its answers could then come from anyone)")
	fs.StringVar(&ff.agentLabel, "agent-label", fleet.DefaultAgentLabel, "the target label holding the address attach reaches a process's agent at")
	fs.StringVar(&ff.clusterLabel, "cluster-label", fleet.DefaultClusterLabel, "the target label naming a process's cluster: part of its name, and the key of --cluster-context")
	fs.StringVar(&ff.agentTokenFile, "agent-token-file", "", "file holding the bearer token the agents ask for (agent.Options.Token), for Enter's attach to the addresses --agent-direct allows")
	fs.StringSliceVar(&ff.agentDirect, "agent-direct", nil, "the agent addresses Enter may send --agent-token-file's token to: hosts, host:port or CIDRs, comma-separated")
	fs.StringVar(&ff.contextLabel, "kube-context-label", "", "the target label naming the kubeconfig context of a process's cluster, for Enter through the API server (default: the current context)")
	fs.StringToStringVar(&ff.clusterContexts, "cluster-context", nil, "the kubeconfig context of each value of --cluster-label, e.g. eu-1=prod-eu,us-1=prod-us (before --kube-context-label)")
	fs.StringVar(&ff.agentPathLabel, "agent-path-label", "", "the target label holding the path the agent is mounted at (default: --agent-path)")
	fs.StringVar(&ff.agentPath, "agent-path", "", "the path the agents are mounted at (default: through the API server, try /debug/informtop/ then /)")
	fs.StringVar(o.kubeFlags.KubeConfig, "kubeconfig", "", "the kubeconfig Enter attaches through, to a process whose target labels name its namespace and pod")
	fs.StringVar(o.kubeFlags.Context, "context", "", "the kubeconfig context Enter attaches through (with --kube-context-label, the label's)")
	fs.DurationVar(&ff.every, "query-interval", fleet.DefaultRefresh, "how often Prometheus is queried (it scrapes every 15-60 s; asking more often only loads it)")
	fs.BoolVar(&o.once, "once", false, "wait for Prometheus' first answer, print one report and exit")
	fs.BoolVar(&o.json, "json", false, "with --once: print the report as JSON")
	fs.DurationVar(&o.timeout, "timeout", 60*time.Second, "with --once: how long to wait for Prometheus' first answer")
	fs.DurationVar(&o.failOnStall, "fail-on-stall", 0, "with --once: exit 5 when a handler has been in one callback longer than this, e.g. 30s (0: never)")
	fs.DurationVar(&o.refresh, "refresh", 100*time.Millisecond, "dashboard refresh interval")
	expect(fs, "query-interval", "a duration such as 5s or 30s")
	expect(fs, "timeout", "a duration such as 30s or 2m")
	expect(fs, "fail-on-stall", "a duration such as 30s or 2m")
	expect(fs, "refresh", "a duration such as 100ms or 1s")
	return cmd
}

// source checks the flags and builds the fleet source; nothing is
// contacted yet.
func (ff fleetFlags) source() (*fleet.Source, error) {
	if ff.every < time.Second {
		return nil, errors.New("--query-interval must be at least 1s, e.g. --query-interval 5s: Prometheus scrapes far less often")
	}
	if (ff.certFile == "") != (ff.keyFile == "") {
		return nil, errors.New("--cert-file and --key-file go together: give both, or neither")
	}
	if (ff.basicUser == "") != (ff.basicPwFile == "") {
		return nil, errors.New("--basic-auth-user and --basic-auth-password-file go together: give both, or neither")
	}
	if ff.tokenFile != "" && ff.basicUser != "" {
		return nil, errors.New("--bearer-token-file and --basic-auth-user are two ways to log in: give one")
	}
	// Each file is read through the fleet's budgets, now and on every
	// query (a rotated token is picked up): never read whole whatever the
	// path names, nor waited on as a FIFO beyond any signal.
	secrets := fleet.SecretFiles{}
	for _, f := range []fleet.SecretFile{
		{Flag: "--bearer-token-file", Path: ff.tokenFile, Limit: fleet.MaxTokenFileBytes, Token: true, What: "the bearer token"},
		{Flag: "--basic-auth-password-file", Path: ff.basicPwFile, Limit: fleet.MaxTokenFileBytes, Token: true, What: "the password"},
		{Flag: "--ca-file", Path: ff.caFile, Limit: fleet.MaxPEMFileBytes, What: "the CA's certificates (PEM)"},
		{Flag: "--cert-file", Path: ff.certFile, Limit: fleet.MaxPEMFileBytes, What: "the client certificate (PEM)"},
		{Flag: "--key-file", Path: ff.keyFile, Limit: fleet.MaxPEMFileBytes, What: "the client key (PEM)"},
	} {
		if f.Path != "" {
			secrets[f.Flag] = f
		}
	}
	if err := secrets.Check(); err != nil {
		return nil, err
	}
	auth := fleet.Auth{InsecureSkipVerify: ff.insecure}
	if ff.tokenFile != "" {
		auth.BearerToken = "--bearer-token-file"
	}
	if ff.basicUser != "" {
		auth.User, auth.Password = ff.basicUser, "--basic-auth-password-file"
	}
	if ff.caFile != "" {
		auth.CA = "--ca-file"
	}
	if ff.certFile != "" {
		auth.Cert, auth.Key = "--cert-file", "--key-file"
	}
	return fleet.New(fleet.Options{URL: ff.url, Selector: ff.selector, Auth: auth, Secrets: secrets, AgentLabel: ff.agentLabel, ClusterLabel: ff.clusterLabel, Refresh: ff.every})
}

// runFleetOnce waits for the first answer, prints the fleet worst first
// and returns the exit code (see the command's help).
func runFleetOnce(ctx context.Context, src *fleet.Source, o *options, ff fleetFlags, stdout, stderr io.Writer) int {
	runCtx, stop := startSource(ctx, src)
	defer stop()
	waitCtx, cancelWait := context.WithTimeout(runCtx, o.timeout)
	err := o.progress.waitSynced(func() error { return src.WaitSynced(waitCtx) }, src, stderr)
	cancelWait()
	switch {
	case errors.Is(err, source.ErrUnreachable):
		fmt.Fprintf(stderr, "informtop: %s\n", termsafe.String(err.Error()))
		return exitBadInput
	case err != nil:
		fmt.Fprintf(stderr, "informtop: %s. Raise --timeout to wait longer.\n", termsafe.String(err.Error()))
		return exitNotSynced
	}
	f := src.Pull(0, 0)
	now := time.Now()
	r := report.BuildFleet(f, now)
	r.Prometheus, r.Selector, r.InformtopVersion = src.URL(), src.Selector(), currentVersions().informtop
	write := report.WriteFleetTable
	if o.json {
		write = report.WriteFleetJSON
	}
	if err := write(stdout, r); err != nil {
		fmt.Fprintf(stderr, "informtop: could not write the report: %v\n", err)
		return exitNotSynced
	}
	if stalls := stalledLonger(f, o.failOnStall, now); len(stalls) > 0 {
		for _, line := range stalls {
			fmt.Fprintf(stderr, "informtop: %s\n", line)
		}
		return exitStalled
	}
	if !r.Synced {
		for _, p := range r.Processes {
			if !p.Synced {
				why := p.Reason
				if why == "" {
					why = "a handler registration has not synced"
				}
				fmt.Fprintf(stderr, "informtop: %s: %s\n", termsafe.String(p.Name), termsafe.String(why))
			}
		}
		return exitNotSynced
	}
	return exitOK
}
