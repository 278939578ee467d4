package termsafe

import (
	"strconv"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"default/web-1", "default/web-1"},
		{"µs ✓ 日本語 ‘quoted’ \\ back", "µs ✓ 日本語 ‘quoted’ \\ back"},
		{"watch stream: \x1b[2J boom", `watch stream: \x1b[2J boom`},
		{"title\x1b]0;pwned\x07", `title\x1b]0;pwned\a`},
		{"clip\x1b]52;c;aGk=\x1b\\", `clip\x1b]52;c;aGk=\x1b\`},
		{"c1 \u009b2J csi", `c1 \u009b2J csi`},
		{"two\nlines", `two\nlines`},
		{"a\tb\rc", `a\tb\rc`},
		{"del\x7f nul\x00", `del\x7f nul\x00`},
		{"bad \xff\xfe utf8", `bad \xff\xfe utf8`},
		{"rlo \u202eevil", `rlo \u202eevil`},
		{"nbsp\u00a0zwsp\u200b", `nbsp\u00a0zwsp\u200b`},
	} {
		if got := String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestStringUnchangedIsNotCopied: the common case costs no allocation.
func TestStringUnchangedIsNotCopied(t *testing.T) {
	s := "kube-system/coredns-7f9c · 410 Gone ✓"
	if n := testing.AllocsPerRun(100, func() { _ = String(s) }); n != 0 {
		t.Fatalf("String allocated %v times for printable text", n)
	}
}

// FuzzString: whatever goes in, what comes out is printable runes only,
// and escaping it again changes nothing.
func FuzzString(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b[2J", "\u009b\u202e\n\t", "\xff\xfe", "日本\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := String(s)
		if !utf8.ValidString(out) {
			t.Fatalf("String(%q) = %q is not UTF-8", s, out)
		}
		for _, r := range out {
			if !strconv.IsPrint(r) {
				t.Fatalf("String(%q) = %q keeps %U", s, out, r)
			}
		}
		if again := String(out); again != out {
			t.Fatalf("String is not stable: %q then %q", out, again)
		}
	})
}
