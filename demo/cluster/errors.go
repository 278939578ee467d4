package cluster

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"syscall"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// serverAddr is where the simulated API server pretends to listen; it only
// appears in error messages.
const serverAddr = "127.0.0.1:6443"

// errTooOld is the 410 a resourceVersion older than the history gets.
func errTooOld(requested, compacted uint64) error {
	return apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", requested, compacted))
}

// errContinueExpired is the 410 for a continue token whose snapshot is
// gone. Unlike the API server this server offers no token for the
// (inconsistent) rest, so the message only says what to do instead.
func errContinueExpired() error {
	return apierrors.NewResourceExpired("the continue token is too old to finish a consistent list; start a new list without it")
}

// errTooLarge answers a resourceVersion newer than the server has; client-go
// recognises it by the ResourceVersionTooLarge cause.
func errTooLarge(requested, current uint64) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusGatewayTimeout,
		Reason:  metav1.StatusReasonTimeout,
		Message: fmt.Sprintf("Timeout: Too large resource version: %d, current: %d", requested, current),
		Details: &metav1.StatusDetails{
			Causes:            []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}},
			RetryAfterSeconds: 1,
		},
	}}
}

// errInvalidOptions is the 422 for list options the server rejects, the way
// the API server reports a failed ListOptions validation.
func errInvalidOptions(errs field.ErrorList) error {
	return apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "ListOptions"}, "", errs)
}

// errRefused is what a client gets from a server that is down: the same
// error chain as a failed dial, so utilnet.IsConnectionRefused and the
// reflector's retry logic treat it as the real thing.
func errRefused(k *kind, namespace string, opts metav1.ListOptions) error {
	return &url.Error{
		Op:  "Get",
		URL: "https://" + serverAddr + requestPath(k, namespace, opts),
		Err: &net.OpError{
			Op:   "dial",
			Net:  "tcp",
			Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 6443},
			Err:  &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED},
		},
	}
}

// requestPath renders the URL path and query a real client would have sent.
func requestPath(k *kind, namespace string, opts metav1.ListOptions) string {
	p := "/api/" + k.gvk.Version
	if k.gvk.Group != "" {
		p = "/apis/" + k.gvk.Group + "/" + k.gvk.Version
	}
	if namespace != "" {
		p += "/namespaces/" + namespace
	}
	p += "/" + k.gr.Resource
	if q, err := metav1.ParameterCodec.EncodeParameters(&opts, metav1.SchemeGroupVersion); err == nil && len(q) > 0 {
		p += "?" + q.Encode()
	}
	return p
}

// statusOf returns the Status an API error carries.
func statusOf(err error) metav1.Status {
	if s, ok := err.(apierrors.APIStatus); ok {
		return s.Status()
	}
	return apierrors.NewInternalError(err).ErrStatus
}
