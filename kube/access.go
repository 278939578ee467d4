package kube

import (
	"context"
	"fmt"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/informtop/informtop/agent/shared/say"
)

// denied checks, as k9s does before it watches, whether the user may list
// and watch r in namespace ns ("" all namespaces). It returns the sentence
// to show when not, "" when allowed or when the check itself failed (the
// informer will then say what the server answers).
func denied(ctx context.Context, c kubernetes.Interface, r resource, ns, as string) string {
	var refused []string
	reason := ""
	for _, verb := range []string{"list", "watch"} {
		review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: ns, Verb: verb,
				Group: r.mapping.Resource.Group, Resource: r.mapping.Resource.Resource,
			},
		}}
		got, err := c.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
		if err != nil {
			return ""
		}
		if !got.Status.Allowed {
			refused = append(refused, verb)
			if got.Status.Reason != "" {
				reason = got.Status.Reason
			}
		}
	}
	if len(refused) == 0 {
		return ""
	}
	who := "you"
	if as != "" {
		who = as
	}
	where := "in namespace " + ns
	if ns == "" || !r.namespaced() {
		where = "cluster-wide"
		if r.namespaced() {
			where = "in all namespaces"
		}
	}
	msg := say.DeniedPrefix + fmt.Sprintf("%s may not %s %s %s (RBAC)", who, strings.Join(refused, " or "), r.name(), where)
	if reason != "" {
		msg += ": " + reason
	}
	return msg
}
