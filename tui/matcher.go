package tui

import (
	"strings"

	"github.com/sahilm/fuzzy"
)

// matcher filters a corpus by a fuzzy query and keeps the corpus order, as
// k9s's "/" does. It remembers the last answer: a query that extends the
// previous one only searches the previous matches, so typing a word costs
// one full scan at most.
//
// sahilm/fuzzy decides what matches: a query matches when its characters
// appear in order, ignoring ASCII case. Its scoring work is wasted on a list
// kept in corpus order and costs ~60 ms per 100k keys, so for ASCII text the
// same decision is made by a plain byte scan over a pre-lowered copy
// (TestMatcherAgreesWithFuzzy pins the equivalence); other text goes through
// fuzzy itself. Highlighting of the drawn rows uses fuzzy's match indexes.
type matcher struct {
	corpus []string
	lower  []string // corpus lowered for ASCII; "" marks a non-ASCII entry
	query  string
	result []int // indexes into corpus matching query
	// applied and specResult remember apply's last answer.
	applied    string
	specResult []int
}

// setCorpus replaces what is searched and forgets the last answer.
func (m *matcher) setCorpus(corpus []string) {
	m.corpus = corpus
	m.lower = make([]string, len(corpus))
	for i, s := range corpus {
		if isASCII(s) {
			m.lower[i] = strings.ToLower(s)
		}
	}
	m.query, m.result = "", nil
	m.applied, m.specResult = "", nil
}

// apply returns the indexes of the corpus entries matching a text or fuzzy
// spec, in corpus order; nil when the spec does not filter. A broken spec
// matches nothing.
func (m *matcher) apply(s filterSpec) []int {
	switch {
	case s.err != "":
		return []int{}
	case s.mode == filterFuzzy:
		return m.filter(s.fuzzy)
	case s.mode != filterText:
		return nil
	}
	if s.raw == m.applied && m.specResult != nil {
		return m.specResult
	}
	out := make([]int, 0, 64)
	for i := range m.corpus {
		if s.matchText(m.corpus[i], m.lower[i]) {
			out = append(out, i)
		}
	}
	m.applied, m.specResult = s.raw, out
	return out
}

// filter returns the indexes of the corpus entries matching q, in corpus
// order; nil for an empty query, which means "everything".
func (m *matcher) filter(q string) []int {
	if q == "" {
		m.query, m.result = "", nil
		return nil
	}
	if q == m.query {
		return m.result
	}
	var candidates []int
	if m.query != "" && strings.HasPrefix(q, m.query) {
		candidates = m.result
	}
	m.result = m.scan(q, candidates)
	m.query = q
	return m.result
}

func (m *matcher) scan(q string, candidates []int) []int {
	ascii := isASCII(q)
	lq := strings.ToLower(q)
	out := make([]int, 0, 64)
	try := func(i int) {
		if ascii && (m.lower[i] != "" || m.corpus[i] == "") {
			if inOrder(m.lower[i], lq) {
				out = append(out, i)
			}
			return
		}
		if len(fuzzy.Find(q, m.corpus[i:i+1])) == 1 {
			out = append(out, i)
		}
	}
	if candidates != nil {
		for _, i := range candidates {
			try(i)
		}
		return out
	}
	for i := range m.corpus {
		try(i)
	}
	return out
}

// inOrder reports whether every byte of q occurs in s in order.
func inOrder(s, q string) bool {
	j := 0
	for i := 0; i < len(s) && j < len(q); i++ {
		if s[i] == q[j] {
			j++
		}
	}
	return j == len(q)
}

// highlightSpec marks what spec matched in s: the regexp's or substring's
// span, or fuzzy's characters.
func highlightSpec(s string, spec filterSpec, on func(...string) string) string {
	switch spec.mode {
	case filterFuzzy:
		return highlight(s, spec.fuzzy, on)
	case filterText, filterFields:
		if i, j := spec.textSpan(s); i >= 0 {
			return s[:i] + on(s[i:j]) + s[j:]
		}
	}
	return s
}

// highlight renders s with the characters fuzzy matched for q in style on;
// plain s when q is empty or does not match.
func highlight(s, q string, on func(...string) string) string {
	if q == "" {
		return s
	}
	ms := fuzzy.Find(q, []string{s})
	if len(ms) == 0 {
		return s
	}
	idx := ms[0].MatchedIndexes
	var b strings.Builder
	k := 0
	for i, r := range s {
		if k < len(idx) && idx[k] == i {
			b.WriteString(on(string(r)))
			k++
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
