package attach

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/informtop/informtop/agent/api"
)

// maxBody bounds what one answer may hold (a frame of many informers with
// a full event batch is a few MB).
const maxBody = 64 << 20

// errNotFound is a 404 from the agent: an unknown key or informer. The
// error get returns is a notFoundError carrying the agent's sentence.
var errNotFound = errors.New("not found")

// notFoundError is a 404 with the agent's sentence; it is errNotFound.
type notFoundError struct{ sentence string }

func (e *notFoundError) Error() string      { return e.sentence }
func (*notFoundError) Is(target error) bool { return target == errNotFound }

// incompatibleError is an answer in a protocol this build does not speak.
type incompatibleError struct{ sentence string }

func (e *incompatibleError) Error() string { return e.sentence }

// notServedError is a 404 from a server that is not the agent: nothing
// is mounted at the path asked.
type notServedError struct{ sentence string }

func (e *notServedError) Error() string { return e.sentence }

// unauthorizedError is a 401 or a guard's 403: the token is missing,
// wrong, or not allowed.
type unauthorizedError struct{ sentence, detail string }

func (e *unauthorizedError) Error() string { return e.sentence }

// failedError is a 500 the agent itself answered: what it was asked
// failed there, and asking again fails the same way.
type failedError struct{ sentence string }

func (e *failedError) Error() string { return e.sentence }

// tooLargeError is an answer longer than maxBody: no agent's frame is,
// so it is not one, and it is not read further.
type tooLargeError struct{ sentence string }

func (e *tooLargeError) Error() string { return e.sentence }

// errPastMaxBody is what cappedBody fails with.
var errPastMaxBody = errors.New("the answer is larger than allowed")

// cappedBody reads an answer's body and fails once it goes past maxBody,
// rather than ending it there: a body cut at the bound would read as
// truncated JSON, retried like a dropped connection.
type cappedBody struct {
	r    io.Reader
	read int64
}

func (c *cappedBody) Read(p []byte) (int, error) {
	if left := maxBody + 1 - c.read; int64(len(p)) > left {
		p = p[:left]
	}
	n, err := c.r.Read(p)
	if c.read += int64(n); c.read > maxBody {
		return 0, errPastMaxBody
	}
	return n, err
}

// get GETs path with query from the agent, bounded by the timeout, and
// decodes a 200 answer's JSON into out. Errors are sentences.
func (s *Source) get(ctx context.Context, path string, query url.Values, out any) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	u := s.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	if s.token != "" {
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return s.transportError(ctx, err)
	}
	defer resp.Body.Close()
	tooLarge := func() error {
		return &tooLargeError{fmt.Sprintf("the agent's answer to %s is larger than %d MiB, far more than an informtop agent's: is %s an informtop agent?", path, maxBody>>20, s.where())}
	}
	if resp.ContentLength > maxBody {
		return tooLarge()
	}
	body := &cappedBody{r: resp.Body}
	version := resp.Header.Get(api.VersionHeader)
	if version != "" && !api.Reads(version) {
		_, _ = io.Copy(io.Discard, body)
		return &incompatibleError{fmt.Sprintf("the agent at %s speaks protocol version %s; this informtop speaks %s: upgrade the older side", s.where(), version, api.Version)}
	}
	if resp.StatusCode == http.StatusUnauthorized {
		detail := "401 Unauthorized" + errorBody(body)
		if s.route != nil {
			return &unauthorizedError{s.route.Unauthorized(s.token != ""), detail}
		}
		if s.token == "" {
			return &unauthorizedError{fmt.Sprintf("the agent at %s wants a token (401 Unauthorized): pass it with --token-file FILE or $INFORMTOP_ATTACH_TOKEN", s.addr), detail}
		}
		return &unauthorizedError{fmt.Sprintf("the agent at %s rejected the token (401 Unauthorized): check the one given with --token, --token-file or $INFORMTOP_ATTACH_TOKEN", s.addr), detail}
	}
	if version == "" {
		return s.foreignAnswer(resp, body)
	}
	switch {
	case resp.StatusCode == http.StatusForbidden:
		// The agent's own 403: a token of a narrower scope (its metrics
		// token), which waiting will not widen.
		text := errorBody(body)
		return &unauthorizedError{fmt.Sprintf("the agent at %s refused the token (403 Forbidden%s): give the token that reads its caches with --token-file, not the one for /metrics", s.where(), text), "403 Forbidden" + text}
	case resp.StatusCode == http.StatusNotFound:
		return &notFoundError{"the agent answered " + resp.Status + errorBody(body)}
	case resp.StatusCode == http.StatusInternalServerError:
		return &failedError{fmt.Sprintf("the agent at %s failed to answer %s (%s%s)", s.where(), path, resp.Status, errorBody(body))}
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("the agent answered %s%s", resp.Status, errorBody(body))
	}
	if err := json.NewDecoder(body).Decode(out); err != nil {
		if errors.Is(err, errPastMaxBody) {
			return tooLarge()
		}
		if ctx.Err() != nil {
			return s.transportError(ctx, err)
		}
		return fmt.Errorf("the agent's answer to %s could not be read: %v", path, err)
	}
	return nil
}

// foreignAnswer names an answer that is not the agent's (no version
// header) for what it is: a guard's 403, a TLS port asked in plain
// HTTP, nothing mounted at the path, or not an agent at all.
func (s *Source) foreignAnswer(resp *http.Response, body io.Reader) error {
	text := errorBody(body)
	_, _ = io.Copy(io.Discard, body)
	switch {
	// controller-runtime's filter answers 500 when the TokenReview
	// finds the token invalid, and when it cannot ask for one at all.
	case resp.StatusCode == http.StatusInternalServerError && s.route != nil && strings.Contains(text, "Authentication failed"):
		return &unauthorizedError{s.route.Unauthorized(s.token != ""), "500" + text}
	case resp.StatusCode == http.StatusInternalServerError && strings.Contains(text, "Authorization for user"):
		return &unauthorizedError{fmt.Sprintf("the metrics server in front of the agent at %s could not check your access (500%s): its own service account needs create on subjectaccessreviews (kubebuilder's metrics-auth-role)", s.where(), text), "500" + text}
	case resp.StatusCode == http.StatusForbidden && s.route != nil:
		return &unauthorizedError{s.route.Forbidden(resp.Request.URL.Path), "403 Forbidden" + text}
	case resp.StatusCode == http.StatusForbidden:
		return &unauthorizedError{fmt.Sprintf("%s refused the request (403 Forbidden%s) before the agent saw it: is a proxy or a metrics server's authorization in front of it? Attach through the API server (informtop attach -n NS deploy/NAME), which sends your kubeconfig's token", s.where(), text), "403 Forbidden" + text}
	case resp.StatusCode == http.StatusBadRequest && strings.Contains(text, "HTTPS server"):
		return &incompatibleError{fmt.Sprintf("%s speaks TLS (it answered plain HTTP with 400 %q): give the address with https://", s.where(), strings.TrimPrefix(text, ": "))}
	case resp.StatusCode == http.StatusNotFound:
		return &notServedError{fmt.Sprintf("%s answered 404 at %s without the %s header: nothing is mounted there; is the agent's path right?", s.where(), resp.Request.URL.Path, api.VersionHeader)}
	}
	return &incompatibleError{fmt.Sprintf("%s answered without the %s header (HTTP %d); this informtop speaks agent protocol version %s: is it an informtop agent, and the address right?",
		s.where(), api.VersionHeader, resp.StatusCode, api.Version)}
}

// errorBody is ": <sentence>" from an api.Error body, or "".
func errorBody(body io.Reader) string {
	var e api.Error
	raw, _ := io.ReadAll(io.LimitReader(body, 64<<10))
	if json.Unmarshal(raw, &e) == nil && e.Error != "" {
		return ": " + e.Error
	}
	if t := strings.TrimSpace(string(raw)); t != "" && len(t) < 200 {
		return ": " + t
	}
	return ""
}

// transportError shortens an error from the HTTP client: the request URL
// is dropped (the header names the address already), a timeout says so.
func (s *Source) transportError(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("no answer from %s within %s", s.where(), s.timeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err
}
