package kubetest

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// RestrictedUser creates, in namespace (created if missing), a service
// account that may do only what rules allow there: a ServiceAccount, a Role
// with rules, a RoleBinding and a token from the TokenRequest API. It returns
// the path of a kubeconfig for that account, written in t.TempDir(), with
// namespace as its context's namespace. It returns once the API server
// accepts the token and applies the Role, which its caches do a moment after
// the objects are created.
func (c *Cluster) RestrictedUser(t testing.TB, namespace string, rules []rbacv1.PolicyRule) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	admin, hc := clientset(t, c.RESTConfig())
	defer hc.CloseIdleConnections()

	c.mu.Lock()
	c.serial++
	name := fmt.Sprintf("restricted-%d", c.serial)
	c.mu.Unlock()

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}
	if _, err := admin.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("kubetest: could not create namespace %s for a restricted user: %v", namespace, err)
	}
	meta := metav1.ObjectMeta{Name: name, Namespace: namespace}
	if _, err := admin.CoreV1().ServiceAccounts(namespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: meta}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("kubetest: could not create service account %s/%s: %v", namespace, name, err)
	}
	if _, err := admin.RbacV1().Roles(namespace).Create(ctx, &rbacv1.Role{ObjectMeta: meta, Rules: rules}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("kubetest: could not create role %s/%s (are the rules valid?): %v", namespace, name, err)
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: meta,
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: namespace}},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
	}
	if _, err := admin.RbacV1().RoleBindings(namespace).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatalf("kubetest: could not create role binding %s/%s: %v", namespace, name, err)
	}
	// A day: longer than any test run, and the API server's default limit.
	expiry := int64(24 * 60 * 60)
	tr, err := admin.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("kubetest: could not get a token for service account %s/%s: %v", namespace, name, err)
	}
	token := tr.Status.Token

	cfg := c.RESTConfig()
	cfg.BearerToken = token
	user, uhc := clientset(t, cfg)
	defer uhc.CloseIdleConnections()
	if len(rules) > 0 {
		waitAllowed(ctx, t, user, namespace, rules[0])
	}

	path := filepath.Join(t.TempDir(), "kubeconfig-"+name)
	if err := writeKubeconfig(path, c.Server(), c.sec.caPEM, "system:serviceaccount:"+namespace+":"+name, token, namespace); err != nil {
		t.Fatal(err)
	}
	return path
}

// waitAllowed asks, as the new user, whether rule's first verb on its first
// resource is allowed, until it is: that proves both that the token is
// accepted and that the RBAC authorizer's cache holds the new binding.
func waitAllowed(ctx context.Context, t testing.TB, user kubernetes.Interface, namespace string, rule rbacv1.PolicyRule) {
	t.Helper()
	first := func(s []string) string {
		if len(s) == 0 {
			return ""
		}
		return s[0]
	}
	attrs := &authorizationv1.ResourceAttributes{
		Namespace: namespace,
		Verb:      first(rule.Verbs),
		Group:     first(rule.APIGroups),
		Resource:  first(rule.Resources),
		Name:      first(rule.ResourceNames),
	}
	var last string
	err := wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		review := &authorizationv1.SelfSubjectAccessReview{
			Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: attrs},
		}
		got, err := user.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		last = fmt.Sprintf("allowed=%t %s", got.Status.Allowed, got.Status.Reason)
		return got.Status.Allowed, nil
	})
	if err != nil {
		t.Fatalf("kubetest: the restricted user in %s was still not allowed to %s %s after 30 s (last answer: %s); "+
			"check that its first rule names a verb and a resource", namespace, attrs.Verb, attrs.Resource, last)
	}
}

// clientset returns a clientset and the HTTP client under it, whose idle
// connections the caller closes, so no connection goroutine outlives the
// call (goleak in the test packages would report it).
func clientset(t testing.TB, cfg *rest.Config) (*kubernetes.Clientset, *http.Client) {
	t.Helper()
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatalf("kubetest: could not make an HTTP client for %s: %v", cfg.Host, err)
	}
	cs, err := kubernetes.NewForConfigAndClient(cfg, hc)
	if err != nil {
		t.Fatalf("kubetest: could not make a clientset for %s: %v", cfg.Host, err)
	}
	return cs, hc
}
