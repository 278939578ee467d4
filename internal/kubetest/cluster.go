// Package kubetest starts a real etcd and kube-apiserver on 127.0.0.1 for
// integration tests, so that informtop is tested against the server it talks
// to in production rather than a fake.
//
// The binaries come from test/kube/build.sh (`make kube-bin`), found through
// the environment variable INFORMTOP_KUBE_BIN; `make unit` sets it. Without
// it, Start and Shared skip the test under -short and fail it otherwise.
//
// A cluster takes about 4 s to start and about 300 MB of memory, so a test
// package should normally share one: call Main from TestMain and Shared from
// the tests. Start gives a test a cluster of its own, for tests that stop the
// API server or otherwise disturb it.
//
// Every process the harness starts is stopped by Close (SIGTERM, then SIGKILL
// after a grace period), and by the kernel if the test binary dies first.
package kubetest

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/informtop/informtop/internal/childproc"
)

const (
	// EnvBinDir names the environment variable holding the directory with
	// kube-apiserver, etcd and kubectl (and kube-controller-manager, which
	// attach's pprof test starts itself): the one test/kube/build.sh prints.
	EnvBinDir = "INFORMTOP_KUBE_BIN"
	// ContextName is the current context of every kubeconfig written here.
	ContextName = "informtop-test"

	adminUser = "informtop-admin"
	// stopGrace bounds how long a process may take to stop after SIGTERM
	// before it gets SIGKILL. The API server needs about 2 s (see
	// --shutdown-watch-termination-grace-period), etcd less.
	stopGrace = 15 * time.Second
	// tailLines is how much of each log a failure shows.
	tailLines = 40
)

// ErrNoBinaries is returned by New when INFORMTOP_KUBE_BIN is not set.
var ErrNoBinaries = errors.New(EnvBinDir + " is not set, so there is no kube-apiserver, etcd or kubectl to start: " +
	"run the tests with `make unit`, or run `make kube-bin` and set " + EnvBinDir + " to the directory it prints")

// Option changes how a cluster is started.
type Option func(*options)

type options struct {
	apiserverFlags []string
	timeout        time.Duration
}

// WithAPIServerFlags adds flags to every kube-apiserver of the cluster. They
// come after the harness's own, so a repeated flag overrides its value.
func WithAPIServerFlags(flags ...string) Option {
	return func(o *options) { o.apiserverFlags = append(o.apiserverFlags, flags...) }
}

// WithStartTimeout sets how long each process may take to become ready
// (default 60 s; it usually takes 4 s, but a loaded 2-core CI machine running
// other tests under -race can be far slower).
func WithStartTimeout(d time.Duration) Option {
	return func(o *options) { o.timeout = d }
}

type binaries struct{ apiserver, etcd, kubectl string }

func findBinaries() (binaries, error) {
	dir := os.Getenv(EnvBinDir)
	if dir == "" {
		return binaries{}, ErrNoBinaries
	}
	b := binaries{
		apiserver: filepath.Join(dir, "kube-apiserver"),
		etcd:      filepath.Join(dir, "etcd"),
		kubectl:   filepath.Join(dir, "kubectl"),
	}
	for _, p := range []string{b.apiserver, b.etcd, b.kubectl} {
		if _, err := childproc.Executable(EnvBinDir, dir, filepath.Base(p), "kube-bin"); err != nil {
			return binaries{}, err
		}
	}
	return b, nil
}

// Cluster is one etcd with one kube-apiserver in front of it (and more
// API servers on demand), all on 127.0.0.1.
type Cluster struct {
	// Kubeconfig is the path of a kubeconfig file for an admin user (group
	// system:masters), with the CA embedded and context ContextName current.
	Kubeconfig string

	dir    string
	ownDir bool // New made dir, so Close removes it
	bins   binaries
	opts   options
	sec    *secrets
	port   int // the first API server's, kept across restarts
	etcd   string

	mu        sync.Mutex
	closed    bool
	etcdProc  *childproc.Process
	apiserver *childproc.Process   // the current first API server
	others    []*childproc.Process // StartSecondAPIServer's
	all       []*childproc.Process // every process started, for logs and PIDs
	serial    int                  // numbers log files and restricted users
}

// Start starts a cluster for t and stops it when t ends. When t fails, the
// end of each process's log is written to t's log.
func Start(t testing.TB, opts ...Option) *Cluster {
	t.Helper()
	bins, err := findBinaries()
	if err != nil {
		childproc.SkipOrFatal(t, err, ErrNoBinaries)
	}
	began := time.Now()
	// t.TempDir before t.Cleanup: cleanups run last-in first-out, so the
	// processes stop before their directory is removed.
	c, err := start(t.TempDir(), false, bins, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			c.logTails(t.Logf)
		}
		c.Close()
	})
	t.Logf("kubetest: etcd and kube-apiserver at %s ready in %s", c.Server(), time.Since(began).Round(time.Millisecond))
	return c
}

// New starts a cluster that is not tied to a test, for a TestMain; the caller
// must call Close. Its files live in a new temporary directory that Close
// removes. It returns ErrNoBinaries when INFORMTOP_KUBE_BIN is not set.
func New(opts ...Option) (*Cluster, error) {
	bins, err := findBinaries()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "informtop-kubetest-")
	if err != nil {
		return nil, fmt.Errorf("could not create a directory for the cluster's files: %w", err)
	}
	c, err := start(dir, true, bins, opts)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return c, nil
}

func start(dir string, ownDir bool, bins binaries, opts []Option) (*Cluster, error) {
	o := options{timeout: 60 * time.Second}
	for _, opt := range opts {
		opt(&o)
	}
	sec, err := writeSecrets(dir)
	if err != nil {
		return nil, fmt.Errorf("could not write the cluster's certificates and tokens to %s: %w", dir, err)
	}
	c := &Cluster{dir: dir, bins: bins, opts: o, sec: sec}

	etcd, ports, err := c.launch("etcd", bins.etcd, nil, 2, c.etcdArgs, c.etcdReady)
	if err != nil {
		c.Close()
		return nil, err
	}
	c.etcd = "http://127.0.0.1:" + strconv.Itoa(ports[0])
	c.etcdProc = etcd

	api, ports, err := c.launch("kube-apiserver", bins.apiserver, nil, 1, c.apiserverArgs, c.apiserverReady)
	if err != nil {
		c.Close()
		return nil, err
	}
	c.port = ports[0]
	c.apiserver = api

	c.Kubeconfig = filepath.Join(dir, "kubeconfig")
	if err := writeKubeconfig(c.Kubeconfig, c.Server(), sec.caPEM, adminUser, sec.adminToken, "default"); err != nil {
		c.Close()
		return nil, err
	}
	// ownDir only now: on the error paths above the caller removes dir.
	c.ownDir = ownDir
	return c, nil
}

// Server is the URL of the first API server, https://127.0.0.1:<port>. It
// stays the same across StopAPIServer and StartAPIServer.
func (c *Cluster) Server() string { return "https://127.0.0.1:" + strconv.Itoa(c.port) }

// RESTConfig returns a new admin configuration for the first API server.
func (c *Cluster) RESTConfig() *rest.Config { return c.restConfig(c.Server()) }

func (c *Cluster) restConfig(host string) *rest.Config {
	return &rest.Config{
		Host:            host,
		BearerToken:     c.sec.adminToken,
		TLSClientConfig: rest.TLSClientConfig{CAData: bytes.Clone(c.sec.caPEM)},
		// client-go's default of 5 requests a second would make a test that
		// creates a few hundred objects take a minute.
		QPS:   200,
		Burst: 400,
	}
}

// Kubectl is the path of the kubectl binary built with the API server.
func (c *Cluster) Kubectl() string { return c.bins.kubectl }

// StopAPIServer stops the first API server (SIGTERM, as a rolling update
// would) and keeps etcd, to simulate an outage. Clients then get "connection
// refused" until StartAPIServer.
func (c *Cluster) StopAPIServer() {
	c.mu.Lock()
	p := c.apiserver
	c.mu.Unlock()
	if p != nil {
		p.Stop(stopGrace)
	}
}

// runningAPIServer is the first API server's process, nil while it is
// not running.
func (c *Cluster) runningAPIServer() *childproc.Process {
	c.mu.Lock()
	p := c.apiserver
	c.mu.Unlock()
	if p == nil || p.Exited() {
		return nil
	}
	return p
}

// signalAPIServer sends sig to the running first API server and returns
// its process; it fails t, naming caller, when none runs or the signal
// cannot be sent.
func (c *Cluster) signalAPIServer(t testing.TB, caller string, sig syscall.Signal) *childproc.Process {
	t.Helper()
	p := c.runningAPIServer()
	if p == nil {
		t.Fatalf("kubetest: %s was called while the API server is not running.", caller)
	}
	if err := p.Signal(sig); err != nil {
		t.Fatalf("kubetest: cannot send %v to the API server: %v", sig, err)
	}
	return p
}

// StartAPIServer starts the first API server again, on the same port, and
// returns once it is ready.
func (c *Cluster) StartAPIServer(t testing.TB) {
	t.Helper()
	if c.runningAPIServer() != nil {
		t.Fatal("kubetest: StartAPIServer was called while the API server is running: call StopAPIServer first.")
	}
	p, _, err := c.launch("kube-apiserver", c.bins.apiserver, []int{c.port}, 1, c.apiserverArgs, c.apiserverReady)
	if err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	c.apiserver = p
	c.mu.Unlock()
}

// StartSecondAPIServer starts another API server on the same etcd and returns
// an admin configuration for it, so a test can change objects while the
// first one is stopped. It stops when t ends, or at Close.
func (c *Cluster) StartSecondAPIServer(t testing.TB) *rest.Config {
	t.Helper()
	p, ports, err := c.launch("kube-apiserver", c.bins.apiserver, nil, 1, c.apiserverArgs, c.apiserverReady)
	if err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	c.others = append(c.others, p)
	c.mu.Unlock()
	t.Cleanup(func() { p.Stop(stopGrace) })
	return c.restConfig("https://127.0.0.1:" + strconv.Itoa(ports[0]))
}

// Close stops every process of the cluster, API servers first, and waits
// until they are gone. It can be called more than once.
func (c *Cluster) Close() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	apiservers := append([]*childproc.Process{c.apiserver}, c.others...)
	etcd := c.etcdProc
	c.mu.Unlock()

	// In parallel: each API server takes ~2 s to close its watches.
	var wg sync.WaitGroup
	for _, p := range apiservers {
		if p != nil {
			wg.Go(func() { p.Stop(stopGrace) })
		}
	}
	wg.Wait()
	// etcd last, so the API servers do not spend their shutdown retrying it.
	if etcd != nil {
		etcd.Stop(stopGrace)
	}
	if c.ownDir {
		os.RemoveAll(c.dir)
	}
}

// launch starts a process on nports ports and waits until it is ready. With
// fixed ports it uses those; otherwise it picks free ones, and picks again
// (up to three times) when another program took one in between.
func (c *Cluster) launch(name, bin string, fixed []int, nports int,
	args func(ports []int) []string, ready func(p *childproc.Process, ports []int) error) (*childproc.Process, []int, error) {
	for attempt := 1; ; attempt++ {
		ports := fixed
		if ports == nil {
			var err error
			if ports, err = freePorts(nports); err != nil {
				return nil, nil, err
			}
		}
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return nil, nil, fmt.Errorf("kubetest: cannot start %s: the cluster was closed", name)
		}
		c.serial++
		logPath := filepath.Join(c.dir, fmt.Sprintf("%s.%d.log", name, c.serial))
		p, err := childproc.Start(name, bin, logPath, args(ports))
		if err == nil {
			c.all = append(c.all, p)
		}
		c.mu.Unlock()
		if err != nil {
			return nil, nil, err
		}
		err = ready(p, ports)
		if err == nil {
			return p, ports, nil
		}
		p.Stop(stopGrace)
		if fixed == nil && attempt < 3 && p.LogContains("address already in use") {
			continue
		}
		return nil, nil, err
	}
}

func freePorts(n int) ([]int, error) {
	// Hold every listener until all ports are known, so the kernel cannot
	// hand out the same port twice.
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("could not find a free port on 127.0.0.1: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func (c *Cluster) etcdArgs(ports []int) []string {
	client := "http://127.0.0.1:" + strconv.Itoa(ports[0])
	peer := "http://127.0.0.1:" + strconv.Itoa(ports[1])
	return []string{
		"--name=kubetest",
		"--data-dir=" + filepath.Join(c.dir, "etcd"),
		"--listen-client-urls=" + client,
		"--advertise-client-urls=" + client,
		// Explicit peer URLs: the defaults (localhost:2380) would collide
		// between clusters of parallel test packages.
		"--listen-peer-urls=" + peer,
		"--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=kubetest=" + peer,
		// A test cluster's data need not survive a power cut; fsync would
		// make every write wait for the disk.
		"--unsafe-no-fsync",
		"--log-level=warn",
	}
}

func (c *Cluster) etcdReady(p *childproc.Process, ports []int) error {
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	return childproc.WaitReady(p, client, "http://127.0.0.1:"+strconv.Itoa(ports[0])+"/health", "", c.opts.timeout)
}

func (c *Cluster) apiserverArgs(ports []int) []string {
	args := []string{
		"--etcd-servers=" + c.etcd,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(ports[0]),
		// Unused with --tls-cert-file, but the default is /var/run/kubernetes.
		"--cert-dir=" + filepath.Join(c.dir, "cert"),
		"--tls-cert-file=" + c.sec.certFile,
		"--tls-private-key-file=" + c.sec.keyFile,
		"--token-auth-file=" + c.sec.tokenFile,
		"--authorization-mode=RBAC",
		// Required, and needed by TokenRequest (RestrictedUser).
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file=" + c.sec.saPubFile,
		"--service-account-signing-key-file=" + c.sec.saKeyFile,
		"--service-cluster-ip-range=10.0.0.0/24",
		// Several API servers share one etcd and none has a real address
		// for the kubernetes service's endpoints.
		"--endpoint-reconciler-type=none",
		// No controller manager creates service account tokens for pods.
		"--disable-admission-plugins=ServiceAccount",
		"--allow-privileged=true",
		// Else SIGTERM waits up to ~15 s for open watches to end.
		"--shutdown-watch-termination-grace-period=2s",
		"--profiling=false",
	}
	return append(args, c.opts.apiserverFlags...)
}

func (c *Cluster) apiserverReady(p *childproc.Process, ports []int) error {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(c.sec.caPEM)
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	url := "https://127.0.0.1:" + strconv.Itoa(ports[0]) + "/readyz?verbose"
	return childproc.WaitReady(p, client, url, c.sec.adminToken, c.opts.timeout)
}

// logTails writes the end of every process's log through logf.
func (c *Cluster) logTails(logf func(format string, args ...any)) {
	c.mu.Lock()
	procs := append([]*childproc.Process(nil), c.all...)
	c.mu.Unlock()
	for _, p := range procs {
		logf("kubetest: last lines of %s (pid %d, %s), from %s:\n%s",
			p.Name(), p.PID(), p.State(), p.LogPath(), indent(p.Tail(tailLines)))
	}
}

func indent(s string) string { return "    " + strings.ReplaceAll(s, "\n", "\n    ") }

func writeKubeconfig(path, server string, caPEM []byte, user, token, namespace string) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[ContextName] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: caPEM}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts[ContextName] = &clientcmdapi.Context{Cluster: ContextName, AuthInfo: user, Namespace: namespace}
	cfg.CurrentContext = ContextName
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return fmt.Errorf("could not write the kubeconfig %s: %w", path, err)
	}
	return nil
}
