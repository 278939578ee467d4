// Package termsafe makes text that informtop did not write (an API server's
// error, an object's key or labels, a remote agent's names, a file) safe to
// print on a terminal or in the one-line fields of a text report: a control
// character in it could clear the screen, retitle the window, write the
// clipboard (OSC 52) or hide what follows, and a newline would break a line
// that is read as one field.
package termsafe

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// String returns s with every rune that is not printable (strconv.IsPrint:
// C0 and C1 controls, ESC, DEL, newline, tab, bidirectional overrides and
// other invisible format characters) written as Go writes it in a quoted
// string, e.g. `\x1b`, `\n`, `\u202e`, and every byte that is not UTF-8 as
// `\xff`. Printable text, the ASCII space included, is left as it is, so a
// string with nothing to escape comes back unchanged and without a copy.
//
// Newlines and tabs are escaped too: the callers print one-line fields,
// where a newline would start a line that is not the field's and a tab's
// width is the terminal's to decide.
func String(s string) string {
	i := firstUnsafe(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(unquote(strconv.Quote(s[i : i+1])))
		case strconv.IsPrint(r):
			b.WriteString(s[i : i+size])
		default:
			b.WriteString(unquote(strconv.QuoteRune(r)))
		}
		i += size
	}
	return b.String()
}

// firstUnsafe is the byte offset of the first rune String must escape, or
// -1; plain printable ASCII, the usual case, is checked a byte at a time.
func firstUnsafe(s string) int {
	for i := 0; i < len(s); {
		if c := s[i]; c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || !strconv.IsPrint(r) {
			return i
		}
		i += size
	}
	return -1
}

// unquote drops the quotes strconv.Quote and QuoteRune put around their
// escape.
func unquote(q string) string { return q[1 : len(q)-1] }
