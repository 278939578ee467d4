package tunnel

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"
	"k8s.io/streaming/pkg/httpstream"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Options say which object leads to the agent, and with which kubeconfig.
type Options struct {
	// Config reaches the API server (the kubeconfig's, with its
	// credentials).
	Config *rest.Config
	// Namespace of the target.
	Namespace string
	Target    Target
}

// Tunnel reaches a port of a pod through the API server's
// pods/portforward, as kubectl port-forward does but with no local port:
// each connection the HTTP client makes is a stream pair inside one
// port-forward connection (WebSocket first, SPDY as the fallback, as
// kubectl v1.31+ does). When the pod goes away, the next connection finds
// the target's next running pod (for a workload or service) or says the
// pod is gone (for a pod).
//
// Locking: mu guards cur, conn, stale, moved, movedCh, nextID and
// transports; shown is published under mu and read without it. DialContext holds
// it for a whole dial (connections are made one at a time; the HTTP
// client keeps one open for every request while the agent answers).
type Tunnel struct {
	cfg    *rest.Config
	client kubernetes.Interface
	ns     string
	target Target

	mu     sync.Mutex
	cur    resolved              // the pod and port connections go to
	conn   httpstream.Connection // to cur.pod; nil until dialled
	stale  bool                  // a stream failed: check the pod before the next one
	moved  string                // the last change of pod, for the status line
	nextID int                   // the protocol's request id of the next stream pair
	// transports are the HTTP clients' (HTTPClient), whose idle
	// connections Close closes.
	transports []*http.Transport
	// movedCh is closed, and replaced, whenever cur changes pod.
	movedCh chan struct{}

	stopFollow context.CancelFunc // ends follow
	followed   chan struct{}      // closed when follow has returned

	shown atomic.Pointer[view] // what Describe, Moved, Pod and Port read
}

// New resolves the target to a running pod and its port; every error is
// a sentence (no such object, no running pod, no such port, RBAC).
// Nothing is forwarded before the first DialContext.
func New(ctx context.Context, opts Options) (*Tunnel, error) {
	if opts.Config == nil {
		return nil, fmt.Errorf("no kubeconfig to reach %s through: give --kubeconfig or --context", opts.Target)
	}
	client, err := kubernetes.NewForConfig(opts.Config)
	if err != nil {
		return nil, fmt.Errorf("the kubeconfig cannot be used to reach %s: %w", opts.Target, err)
	}
	t := &Tunnel{cfg: opts.Config, client: client, ns: opts.Namespace, target: opts.Target,
		movedCh: make(chan struct{}), followed: make(chan struct{})}
	if t.cur, err = resolve(ctx, client, t.ns, t.target); err != nil {
		return nil, err
	}
	t.publish()
	fctx, cancel := context.WithCancel(context.Background())
	t.stopFollow = cancel
	go t.follow(fctx)
	return t, nil
}

// view is what the tunnel shows of where it leads: published whole on
// every change, so the dashboard reads it without waiting for a dial in
// progress (which holds mu).
type view struct {
	pod   string
	port  int32
	desc  string // as Describe returns it
	moved string // as Moved returns it
}

// publish makes cur (and moved) what readers see. t.mu is held.
func (t *Tunnel) publish() {
	what := t.ns + "/" + t.cur.pod.Name
	if t.target.Workload() {
		what += " (" + short[t.target.Kind] + "/" + t.target.Name + ")"
	}
	t.shown.Store(&view{pod: t.cur.pod.Name, port: t.cur.port, desc: fmt.Sprintf("%s:%d via API server", what, t.cur.port), moved: t.moved})
}

// Describe names where the tunnel leads now, as the header shows it:
// "prod/ctrl-7d9f-x2x (deploy/ctrl):8443 via API server". It never waits.
func (t *Tunnel) Describe() string { return t.shown.Load().desc }

// Moved is the last change of pod ("" if none): which pod went away and
// which one the tunnel leads to now. It never waits.
func (t *Tunnel) Moved() string { return t.shown.Load().moved }

// Pod is the pod the tunnel leads to now; alone, it names the tunnel in
// a narrow header (the namespace is the one the user gave). It never
// waits.
func (t *Tunnel) Pod() string { return t.shown.Load().pod }

// Port is the pod's port connections go to.
func (t *Tunnel) Port() int32 { return t.shown.Load().port }

// Target is what the user named.
func (t *Tunnel) Target() Target { return t.target }

// Namespace is the target's.
func (t *Tunnel) Namespace() string { return t.ns }

// DialContext opens a connection to the pod's port. network and addr are
// ignored: the tunnel has one destination.
func (t *Tunnel) DialContext(ctx context.Context, _, addr string) (net.Conn, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for attempt := 0; ; attempt++ {
		if t.conn == nil || t.stale || closed(t.conn) {
			if err := t.refresh(ctx); err != nil {
				return nil, err
			}
		}
		c, err := newStreamConn(t.conn, t.cur.port, t.nextID, podAddr(addr))
		t.nextID++
		if err == nil {
			c.onForwardError = t.markStale
			return c, nil
		}
		// The port-forward connection broke under us (the API server
		// restarted, the pod's node went away): one more try, anew.
		t.closeConn()
		if attempt > 0 {
			return nil, fmt.Errorf("port-forward to pod %s/%s failed: %w", t.ns, t.cur.pod.Name, err)
		}
	}
}

// markStale makes the next dial check the pod first: a stream ended with
// the kubelet's error, so the pod may be gone.
func (t *Tunnel) markStale() {
	t.mu.Lock()
	t.stale = true
	t.mu.Unlock()
}

// refresh makes sure cur is a running pod, finding the next one for a
// workload, and dials a new port-forward connection to it. t.mu is held.
func (t *Tunnel) refresh(ctx context.Context) error {
	t.closeConn()
	if t.stale {
		if err := t.repoint(ctx); err != nil {
			return err
		}
		t.stale = false
	}
	conn, err := t.dial(ctx, t.cur.pod.Name)
	if err != nil {
		return err
	}
	t.conn = conn
	return nil
}

// repoint checks the pod cur names and, when it is gone, not running or
// replaced, points cur at where the target leads now. t.mu is held.
func (t *Tunnel) repoint(ctx context.Context) error {
	old := t.cur.pod
	pod, err := t.client.CoreV1().Pods(t.ns).Get(ctx, old.Name, metav1.GetOptions{})
	why := ""
	switch {
	case apierrors.IsNotFound(err):
		why = "deleted"
	case err != nil:
		return fmt.Errorf("checking pod %s/%s: %w", t.ns, old.Name, err)
	case pod.UID != old.UID && notRunning(pod) == "":
		// A stateful set's pod comes back under its name: that is the
		// pod a pod/NAME target means.
		t.cur.pod = pod
		t.moved = fmt.Sprintf("pod %s was replaced by a new pod of the same name; attached to it", old.Name)
		t.movedTo()
	case pod.UID != old.UID:
		why = "replaced by a pod of the same name that is " + notRunning(pod)
	default:
		why = notRunning(pod)
	}
	if why == "" {
		return nil
	}
	if !t.target.Workload() {
		return fmt.Errorf("pod %s/%s is %s: attach to its workload (e.g. deploy/NAME) to follow the pod that replaces it", t.ns, old.Name, why)
	}
	r, err := resolve(ctx, t.client, t.ns, t.target)
	if err != nil {
		return fmt.Errorf("pod %s/%s is %s, and no other pod to attach to: %w", t.ns, old.Name, why, err)
	}
	t.cur = r
	t.moved = fmt.Sprintf("pod %s was %s; attached to %s", old.Name, why, r.pod.Name)
	t.movedTo()
	return nil
}

// movedTo tells follow and the readers that cur is another pod now. t.mu
// is held.
func (t *Tunnel) movedTo() {
	close(t.movedCh)
	t.movedCh = make(chan struct{})
	t.publish()
}

// dial opens the port-forward connection to pod: WebSocket first, SPDY
// when the API server cannot upgrade to it.
func (t *Tunnel) dial(ctx context.Context, pod string) (httpstream.Connection, error) {
	u := t.client.CoreV1().RESTClient().Post().Resource("pods").Namespace(t.ns).Name(pod).SubResource("portforward").URL()
	ws, err := portforward.NewSPDYOverWebsocketDialerForStreaming(u, t.cfg)
	if err != nil {
		return nil, err
	}
	rt, upgrader, err := spdy.RoundTripperFor(t.cfg)
	if err != nil {
		return nil, err
	}
	sp := spdy.NewDialerForStreaming(upgrader, &http.Client{Transport: rt}, http.MethodPost, u)
	dialer := portforward.NewFallbackDialerForStreaming(ws, sp, func(err error) bool {
		return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
	})
	type result struct {
		conn httpstream.Connection
		err  error
	}
	done := make(chan result, 1)
	go func() {
		conn, _, err := dialer.Dial(portforward.PortForwardProtocolV1Name)
		done <- result{conn, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return nil, t.dialError(pod, r.err)
		}
		return r.conn, nil
	case <-ctx.Done():
		go func() { // the dial has no context: close what it brings
			if r := <-done; r.conn != nil {
				_ = r.conn.Close()
			}
		}()
		return nil, fmt.Errorf("no port-forward to pod %s/%s: %w", t.ns, pod, ctx.Err())
	}
}

// dialError turns a refused port-forward into a sentence; RBAC's refusal
// names the rule.
func (t *Tunnel) dialError(pod string, err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "forbidden") || strings.Contains(msg, "Forbidden"):
		return &RefusedError{fmt.Sprintf("the API server does not let you port-forward to pod %s/%s (RBAC): attach needs a Role in %s with resources: [\"pods/portforward\"], verbs: [\"create\"] (server said: %s)", t.ns, pod, t.ns, lastLine(msg))}
	case strings.Contains(msg, "Unauthorized"):
		return &RefusedError{fmt.Sprintf("the API server rejected your credentials (401 Unauthorized) for the port-forward to pod %s/%s: log in again, or check --kubeconfig and --context", t.ns, pod)}
	}
	return fmt.Errorf("port-forward to pod %s/%s failed: %w", t.ns, pod, err)
}

// RefusedError is a port-forward the API server refuses: waiting will
// not mend it.
type RefusedError struct{ Sentence string }

func (e *RefusedError) Error() string { return e.Sentence }

// Close ends the HTTP clients' connections, the port-forward connection
// and the watch of the pod. The tunnel is not used after.
func (t *Tunnel) Close() {
	t.stopFollow()
	<-t.followed
	t.mu.Lock()
	defer t.mu.Unlock()
	t.hangUp()
}

// hangUp ends the HTTP clients' idle connections and the port-forward
// connection, which ends every stream in it. t.mu is held.
func (t *Tunnel) hangUp() {
	for _, tr := range t.transports {
		tr.CloseIdleConnections()
	}
	t.closeConn()
}

// closeConn ends the port-forward connection; the next dial opens
// another. t.mu is held.
func (t *Tunnel) closeConn() {
	if t.conn != nil {
		_ = t.conn.Close()
		t.conn = nil
	}
}

func closed(c httpstream.Connection) bool {
	select {
	case <-c.CloseChan():
		return true
	default:
		return false
	}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndex(s, "\n"); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// podAddr is a connection's remote address: the one the HTTP client
// asked for (the pod's name and port), for its logs.
type podAddr string

func (a podAddr) Network() string { return "portforward" }
func (a podAddr) String() string  { return string(a) }
