package childproc

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// WaitReady polls url until it answers 200, the process exits or timeout
// passes; token, when set, goes as a bearer token. The error says which,
// with the server's last answer and the end of its log.
func WaitReady(p *Process, client *http.Client, url, token string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var last string
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err == nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Sprintf("%s: %s", resp.Status, failedChecks(body))
		} else {
			last = err.Error()
		}
		select {
		case <-p.done:
			return fmt.Errorf("%s exited before it was ready (%v); the end of its log:\n%s", p.name, p.err, p.Tail(30))
		case <-ctx.Done():
			return fmt.Errorf("%s was not ready after %s (last answer from %s: %s); the end of its log:\n%s",
				p.name, timeout, url, last, p.Tail(30))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// failedChecks keeps the failing lines of a verbose /readyz answer, which
// otherwise lists every passing check too; other answers are kept whole.
func failedChecks(body []byte) string {
	var failed []string
	for _, l := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(l, "[-]") {
			failed = append(failed, l)
		}
	}
	if len(failed) == 0 {
		return strings.TrimSpace(string(body))
	}
	return strings.Join(failed, "; ")
}
