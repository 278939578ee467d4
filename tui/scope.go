package tui

import (
	"slices"
	"strconv"
	"strings"

	"github.com/informtop/informtop/agent/source"
)

// Where the user is, said as k9s says it: the context, then the resource
// with its namespace and object count, "prod › pods(shop)[42]". The
// header and the ":" prompt both lead with it, so after ":ns", ":pods -A"
// or ":ctx" the screen says where it now looks.

// scopeContext is the kubeconfig context a cluster's source is on, ""
// for any other source (a demo, an agent: its name is on the next line).
func scopeContext(c *common) string {
	if c.src.Kind() != "kube" {
		return ""
	}
	return safe(c.src.Title())
}

// scopeNamespace is the namespace s watches, "all" for every one (and for
// a cluster-scoped resource, as k9s says it).
func scopeNamespace(s *source.Informer) string {
	if s.Namespace == "" {
		return "all"
	}
	return safe(s.Namespace)
}

// scopeResource is "pods(shop)[42]".
func scopeResource(s *source.Informer) string {
	return safe(s.Name) + "(" + scopeNamespace(s) + ")[" + strconv.Itoa(s.Store.Objects) + "]"
}

// scopeText is "prod › pods(shop)[42]", or "pods(shop)[42]" off a
// cluster; a fleet's informer only by name: its processes' namespaces
// are not in the series it reads.
func scopeText(c *common, s *source.Informer) string {
	if c.caps.fleet {
		return safe(s.Name)
	}
	if ctx := scopeContext(c); ctx != "" {
		return ctx + " › " + scopeResource(s)
	}
	return scopeResource(s)
}

// scopeWhere says in words where s looks: "in namespace shop of context
// prod", "in every namespace".
func scopeWhere(c *common, s *source.Informer) string {
	where := "in every namespace"
	if s.Namespace != "" {
		where = "in namespace " + safe(s.Namespace)
	}
	if ctx := scopeContext(c); ctx != "" {
		where += " of context " + ctx
	}
	return where
}

// fitScoped fits the header's first line, whose part at is the scope and
// the queue's kind, and whose part at+1+state is the informer's sync
// state: when the line is too wide the kind goes to the end, so figures
// go before where the user is; only when the sync state would go too
// does the context (the next line names it at some widths) give way.
func fitScoped(c *common, s *source.Informer, sep string, parts []string, at, state int, kind string) string {
	if c.caps.fleet || width(strings.Join(parts, sep)) <= c.width {
		return fitParts(sep, c.width, parts...)
	}
	moved := slices.Clone(parts)
	moved[at] = c.styles.bold.Render(scopeText(c, s))
	moved = append(moved, kind)
	if width(strings.Join(moved[:state+1], sep)) <= c.width {
		return fitParts(sep, c.width, moved...)
	}
	moved[at] = c.styles.bold.Render(scopeResource(s))
	return fitParts(sep, c.width, moved...)
}
