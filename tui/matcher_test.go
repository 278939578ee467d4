package tui

import (
	"math/rand"
	"reflect"
	"testing"

	"github.com/sahilm/fuzzy"
)

// TestMatcherAgreesWithFuzzy pins the fast path to the library: on random
// ASCII text the byte scan keeps exactly the entries fuzzy.Find matches.
func TestMatcherAgreesWithFuzzy(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	const alphabet = "abcAB-/_.09 xyzXYZ"
	word := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.Intn(len(alphabet))]
		}
		return string(b)
	}
	corpus := make([]string, 3000)
	for i := range corpus {
		corpus[i] = word(1 + rng.Intn(30))
	}
	corpus = append(corpus, "", "ünïcode/Web-1", "ÄBC")
	var m matcher
	m.setCorpus(corpus)
	for q := 0; q < 300; q++ {
		query := word(1 + rng.Intn(4))
		var want []int
		for _, f := range fuzzy.FindNoSort(query, corpus) {
			want = append(want, f.Index)
		}
		m.query, m.result = "", nil // no narrowing: compare the raw scan
		got := m.filter(query)
		if len(want) == 0 {
			want = []int{}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("query %q: matcher kept %v, fuzzy %v", query, got, want)
		}
	}
}

func TestMatcherNarrowingEqualsFreshSearch(t *testing.T) {
	corpus := []string{"default/web-1", "default/web-10", "kube-system/coredns-1", "default/db", "Web-Ünï"}
	var m matcher
	m.setCorpus(corpus)
	steps := []struct {
		q    string
		want []int
	}{
		{"w", []int{0, 1, 4}},
		{"we", []int{0, 1, 4}},
		{"web", []int{0, 1, 4}},
		{"web1", []int{0, 1}},
		{"web10", []int{1}},
		{"web1", []int{0, 1}}, // backspace: a fresh scan, not a narrowing
		{"d", []int{0, 1, 2, 3}},
		{"", nil},
	}
	for _, s := range steps {
		if got := m.filter(s.q); !reflect.DeepEqual(got, s.want) && !(len(got) == 0 && len(s.want) == 0) {
			t.Fatalf("filter(%q) = %v, want %v", s.q, got, s.want)
		}
	}
}

func TestHighlightMarksMatchedRunes(t *testing.T) {
	mark := func(s ...string) string { return "[" + s[0] + "]" }
	if got := highlight("default/web-1", "dw1", mark); got != "[d]efault/[w]eb-[1]" {
		t.Fatalf("highlight = %q", got)
	}
	if got := highlight("default/web-1", "zz", mark); got != "default/web-1" {
		t.Fatalf("no match should stay plain, got %q", got)
	}
}
