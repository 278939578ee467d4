package tunnel

import (
	"fmt"
	"strings"
)

// The sentences attach says when what guards an agent reached through
// the tunnel refuses a request: on a controller-runtime manager, its
// metrics server's authentication and authorization filter, which checks
// the bearer token with a TokenReview and the request with a
// SubjectAccessReview of the non-resource URL.

// Unauthorized is the sentence for a 401: the token is missing or not
// one the cluster issued.
func (t *Tunnel) Unauthorized(tokenGiven bool) string {
	where := fmt.Sprintf("the server in front of the agent in pod %s/%s", t.ns, t.Pod())
	mint := fmt.Sprintf("kubectl create token SERVICEACCOUNT -n %s > token", t.ns)
	switch {
	case tokenGiven:
		return fmt.Sprintf("%s rejected the token given with --token-file, --token or $INFORMTOP_ATTACH_TOKEN (401 Unauthorized): use a token this cluster issued (%s), or give none to send your kubeconfig's", where, mint)
	case t.SendsToken():
		return fmt.Sprintf("%s rejected your kubeconfig's token (401 Unauthorized): its TokenReview failed; log in again, or pass a token this cluster issued with --token-file (%s)", where, mint)
	}
	return fmt.Sprintf("%s wants a bearer token (401 Unauthorized), and your kubeconfig has none (a client certificate is nothing it can check): make one with `%s` for an account allowed get on the agent's path, and pass --token-file token", where, mint)
}

// Forbidden is the sentence for a 403 on path: the token is good, but
// its user may not get the agent's non-resource URL. It names the
// ClusterRole rule that allows it.
func (t *Tunnel) Forbidden(path string) string {
	return fmt.Sprintf("the server in front of the agent in pod %s/%s does not let you read it (403 Forbidden on GET %s): bind yourself a ClusterRole with the rule nonResourceURLs: [%q], verbs: [\"get\"] (controller-runtime's metrics server remembers a refusal for 30 s)",
		t.ns, t.Pod(), path, mountRule(path))
}

// mountRule is the non-resource URL rule covering every path of the
// agent whose request was path: its mount prefix and "*".
func mountRule(path string) string {
	if i := strings.Index(path, "/informtop/v1/"); i >= 0 {
		return path[:i] + "/*"
	}
	return path
}
