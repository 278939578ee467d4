package layering

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goBlock is a fenced Go block of a Markdown file.
var goBlock = regexp.MustCompile("(?s)```go\n(.*?)```")

// The README's and docs/agent.md's snippets for a user's controller are
// the examples' own lines (their readme.go files, built with each
// example), which the examples module compiles: a snippet a user copies
// never drifts from code that builds. Every line of a Go block in the
// section must appear, as is, in a Go file of examples/.
func TestControllerSnippetsAreTheExamplesLines(t *testing.T) {
	var code strings.Builder
	err := filepath.WalkDir(filepath.Join(root, "examples"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		b, err := os.ReadFile(path)
		for _, line := range strings.Split(string(b), "\n") {
			code.WriteString(strings.TrimSpace(line) + "\n")
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	examples := code.String()
	for _, c := range []struct{ file, from, to string }{
		{"README.md", "## Your controller, one line", "\n## "},
		{"docs/agent.md", "## One line in your controller", "\n### "},
	} {
		text := read(t, c.file)
		start := strings.Index(text, c.from)
		if start < 0 {
			t.Fatalf("%s has no section %q", c.file, c.from)
		}
		section := text[start+len(c.from):]
		if end := strings.Index(section, c.to); end >= 0 {
			section = section[:end]
		}
		blocks := goBlock.FindAllStringSubmatch(section, -1)
		if len(blocks) < 2 {
			t.Fatalf("%s, %s: %d Go blocks; want the controller-runtime one and the client-go factory one", c.file, c.from, len(blocks))
		}
		for _, b := range blocks {
			for _, line := range strings.Split(b[1], "\n") {
				line = strings.TrimSpace(line)
				if line != "" && !strings.Contains(examples, "\n"+line+"\n") {
					t.Errorf("%s, %s: the line\n\t%s\nis in no Go file of examples/, which compile the snippets: copy it from there", c.file, c.from, line)
				}
			}
		}
	}
}
