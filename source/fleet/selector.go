package fleet

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// matcher is one PromQL label matcher: name, operator and value.
type matcher struct {
	name, op, value string
}

// String is the matcher as PromQL writes it, its value quoted again.
func (m matcher) String() string { return m.name + m.op + strconv.Quote(m.value) }

// parseSelector reads --selector: PromQL label matchers separated by
// commas, with or without the braces around them
// (`namespace="shop",cluster=~"eu.*"`). It checks what Prometheus would
// refuse (a bad name, operator, quoting or regular expression) so that a
// typo is a sentence before the first query, not a 400 from the server.
// The result is the matchers as one string to put inside every query's
// braces; "" when sel is empty.
func parseSelector(sel string) (string, error) {
	s := strings.TrimSpace(sel)
	if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	if s == "" {
		return "", nil
	}
	var out []string
	for s != "" {
		m, rest, err := nextMatcher(s)
		if err != nil {
			return "", fmt.Errorf("--selector %q: %w; give PromQL label matchers, e.g. namespace=\"shop\",cluster=~\"eu.*\"", sel, err)
		}
		out = append(out, m.String())
		s = strings.TrimSpace(rest)
		if s == "" {
			break
		}
		if !strings.HasPrefix(s, ",") {
			return "", fmt.Errorf("--selector %q: expected a comma before %q; give PromQL label matchers, e.g. namespace=\"shop\",cluster=~\"eu.*\"", sel, s)
		}
		s = strings.TrimSpace(s[1:])
	}
	return strings.Join(out, ","), nil
}

// nextMatcher reads one matcher from the start of s.
func nextMatcher(s string) (matcher, string, error) {
	var m matcher
	i := 0
	for i < len(s) && isNameByte(s[i], i == 0) {
		i++
	}
	if i == 0 {
		return m, "", fmt.Errorf("%q does not start with a label name (letters, digits and _, not starting with a digit)", s)
	}
	m.name, s = s[:i], strings.TrimSpace(s[i:])
	for _, op := range []string{"=~", "!~", "!=", "="} {
		if strings.HasPrefix(s, op) {
			m.op, s = op, strings.TrimSpace(s[len(op):])
			break
		}
	}
	if m.op == "" {
		return m, "", fmt.Errorf("label %s has no operator: use =, !=, =~ or !~", m.name)
	}
	if s == "" || (s[0] != '"' && s[0] != '`') {
		return m, "", fmt.Errorf("the value of %s is not in double quotes: write %s%s\"value\"", m.name, m.name, m.op)
	}
	quoted, err := strconv.QuotedPrefix(s)
	if err != nil {
		return m, "", fmt.Errorf("the value of %s has no closing quote or a bad escape", m.name)
	}
	v, err := strconv.Unquote(quoted)
	if err != nil {
		return m, "", fmt.Errorf("the value of %s has a bad escape", m.name)
	}
	m.value = v
	if m.op == "=~" || m.op == "!~" {
		// Prometheus anchors the expression and uses RE2, as Go does.
		if _, err := regexp.Compile("^(?:" + v + ")$"); err != nil {
			return m, "", fmt.Errorf("the regular expression of %s does not compile: %v", m.name, err)
		}
	}
	return m, s[len(quoted):], nil
}

func isNameByte(b byte, first bool) bool {
	return b == '_' || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (!first && b >= '0' && b <= '9')
}
