package tunnel

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/streaming/pkg/httpstream"
)

// errorWait bounds how long a read that hit the end of the data stream
// waits for the error stream's message, which the kubelet sends when the
// pod's port could not be dialled (and which says why).
const errorWait = 2 * time.Second

// streamConn is one TCP connection to a pod's port, carried inside the
// port-forward connection as the protocol's pair of streams: data both
// ways, and an error stream the kubelet writes a message to when the
// connection to the port fails. No local socket exists, so no other
// process on this machine can use the tunnel.
//
// Deadlines are not supported (the streams have none); the HTTP client
// above bounds each request with its context and closes the connection
// when it runs out, which ends a blocked Read.
type streamConn struct {
	parent     httpstream.Connection
	data, errs httpstream.Stream
	local      net.Addr
	remote     net.Addr

	// errDone is closed once the error stream has ended; errMsg, its
	// content, is written before and never after.
	errDone chan struct{}
	errMsg  string

	// onForwardError, when set, learns that the kubelet refused this
	// connection (the pod may be gone).
	onForwardError func()

	closeOnce sync.Once
}

// newStreamConn opens the stream pair for port, request id id.
func newStreamConn(parent httpstream.Connection, port int32, id int, remote net.Addr) (*streamConn, error) {
	h := http.Header{}
	h.Set(corev1.PortHeader, strconv.Itoa(int(port)))
	h.Set(corev1.PortForwardRequestIDHeader, strconv.Itoa(id))
	h.Set(corev1.StreamType, corev1.StreamTypeError)
	errs, err := parent.CreateStream(h)
	if err != nil {
		return nil, err
	}
	// attach never writes to the error stream.
	_ = errs.Close()
	h.Set(corev1.StreamType, corev1.StreamTypeData)
	data, err := parent.CreateStream(h)
	if err != nil {
		parent.RemoveStreams(errs)
		return nil, err
	}
	c := &streamConn{parent: parent, data: data, errs: errs, remote: remote,
		local: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}, errDone: make(chan struct{})}
	go func() {
		msg, _ := io.ReadAll(io.LimitReader(errs, 4<<10))
		c.errMsg = strings.TrimSpace(string(msg))
		close(c.errDone)
	}()
	return c, nil
}

// Read reads the pod's bytes. At the end of the stream it returns the
// kubelet's message, when there is one, as the error.
func (c *streamConn) Read(p []byte) (int, error) {
	n, err := c.data.Read(p)
	if err != nil && n == 0 {
		if msg := c.remoteError(errorWait); msg != "" {
			if c.onForwardError != nil {
				c.onForwardError()
			}
			return 0, &ForwardError{Message: msg}
		}
	}
	return n, err
}

func (c *streamConn) Write(p []byte) (int, error) {
	n, err := c.data.Write(p)
	if err != nil {
		if msg := c.remoteError(0); msg != "" {
			return n, &ForwardError{Message: msg}
		}
	}
	return n, err
}

// remoteError is the error stream's message, waiting up to wait for it.
func (c *streamConn) remoteError(wait time.Duration) string {
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-c.errDone:
		return c.errMsg
	case <-t.C:
		return ""
	}
}

// Close ends both streams; unsent data is dropped (a reset), as a closed
// socket would.
func (c *streamConn) Close() error {
	c.closeOnce.Do(func() {
		_ = c.data.Reset()
		_ = c.errs.Reset()
		c.parent.RemoveStreams(c.data, c.errs)
	})
	return nil
}

func (c *streamConn) LocalAddr() net.Addr              { return c.local }
func (c *streamConn) RemoteAddr() net.Addr             { return c.remote }
func (c *streamConn) SetDeadline(time.Time) error      { return nil }
func (c *streamConn) SetReadDeadline(time.Time) error  { return nil }
func (c *streamConn) SetWriteDeadline(time.Time) error { return nil }

// ForwardError is what the kubelet said when it could not connect to the
// pod's port (nothing listening there, the pod gone).
type ForwardError struct{ Message string }

func (e *ForwardError) Error() string {
	return "the kubelet could not forward to the pod: " + e.Message
}

// IsForwardError reports whether err carries a kubelet's message.
func IsForwardError(err error) bool {
	var fe *ForwardError
	return errors.As(err, &fe)
}
