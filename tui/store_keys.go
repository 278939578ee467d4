package tui

import (
	"errors"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// The Store's k9s keys beyond the list: d describes, l follows a pod's
// log, enter on a namespace goes into it, u uses the namespace of the
// object under the cursor. Each answers with a command; the Model acts on
// what reaches it (a status, a namespace to move to).

// namespaceAsk asks the Model to move the namespaced informers to ns, as
// ":ns NAME" does; pods then shows the pods there, as k9s does on enter.
type namespaceAsk struct {
	ns   string
	pods bool
}

// footerSay is a command that puts text, or err, in the footer.
func footerSay(text string, err error) tea.Cmd {
	return func() tea.Msg { return controlMsg{text: text, err: err} }
}

// closePanes ends whatever is open over the list (the logs stream too)
// and goes back to the list.
func (v *storeView) closePanes() {
	if v.logs != nil {
		v.logs.stop()
	}
	v.mode, v.obj, v.idx, v.text, v.logs = storeList, nil, nil, nil, nil
}

// listHelp is the list's keys in the footer: describe and logs where the
// source serves them.
func (v *storeView) listHelp() []key.Binding {
	k := v.c.keys
	if v.noStore {
		return nil // no objects to filter, open, describe or sort
	}
	keys := []key.Binding{k.Filter, k.Open}
	if v.c.caps.describe != nil {
		keys = append(keys, k.Describe)
	}
	if v.c.caps.logs != nil && v.showsPods() {
		keys = append(keys, k.Logs)
	}
	if v.c.caps.retarget != nil {
		keys = append(keys, k.UseNamespace, k.AllNamespaces)
	}
	return append(keys, k.YAML, k.Indexes, k.SortName, k.SortAge)
}

// showsPods and showsNamespaces say what the informer shown lists.
func (v *storeView) showsPods() bool { return v.resource() == "pods" }
func (v *storeView) showsNamespaces() bool {
	return v.resource() == "namespaces" && v.c.caps.retarget != nil
}

// resource is the shown informer's resource in the core group ("pods"),
// "" for another group's.
func (v *storeView) resource() string {
	s := v.c.data.snap()
	if s == nil || s.Group != "" {
		return ""
	}
	if s.Resource != "" {
		return s.Resource
	}
	return s.Name
}

func goToNamespace(ns string) tea.Cmd {
	return func() tea.Msg { return namespaceAsk{ns: ns, pods: true} }
}

// logsKey follows the log of the pod under the cursor, or says why not.
func (v *storeView) logsKey() tea.Cmd {
	switch {
	case v.c.caps.logs == nil:
		return footerSay("", fmt.Errorf("logs are read from a cluster's API server (pods/log); %s does not reach one: run kubectl logs %s", sourceName(v.c), kubectlObject(v.c, v.selectedKey())))
	case !v.showsPods():
		return footerSay("", errors.New("l follows a pod's log: :pods, then l on one"))
	}
	sel := v.selectedKey()
	if sel == "" {
		return nil
	}
	return v.logsOf(sel)
}

// useNamespaceKey moves to the namespace of the object under the cursor
// (the namespace itself on :ns).
func (v *storeView) useNamespaceKey() tea.Cmd {
	if v.c.caps.retarget == nil {
		return footerSay("", fmt.Errorf("u moves informtop to a namespace, as :ns does; %s does not watch a cluster from here", sourceName(v.c)))
	}
	sel := v.selectedKey()
	if sel == "" {
		return nil
	}
	if v.showsNamespaces() {
		return func() tea.Msg { return namespaceAsk{ns: sel} }
	}
	ns, _, found := strings.Cut(sel, "/")
	if !found {
		return footerSay("", fmt.Errorf("%s is not in a namespace (its resource is cluster-scoped)", sel))
	}
	return func() tea.Msg { return namespaceAsk{ns: ns} }
}

// storeKeysHelp says in the help how the Store sorts, and what d, l, u,
// 0 and enter on a namespace do where the source serves them.
func storeKeysHelp(c *common) string {
	k := c.keys
	text := "Store sorts as k9s does: shift and a column's initial (" + k.SortName.Help().Key + " KEY, " + k.SortAge.Help().Key +
		" AGE, S STATUS), the same key again reverses"
	if c.caps.describe != nil {
		text += "; " + k.Describe.Help().Key + " describes the object as kubectl describe does (through the API server)"
	}
	if c.caps.logs != nil {
		text += "; " + k.Logs.Help().Key + " follows a pod's container log"
	}
	if c.caps.retarget != nil {
		text += "; enter on a namespace goes into it, " + k.UseNamespace.Help().Key + " moves to the namespace under the cursor, " +
			k.AllNamespaces.Help().Key + " to every namespace"
	}
	return text
}
