package source

import (
	"context"
	"testing"

	"github.com/informtop/informtop/agent/verify"
)

type shown struct{ title string }

func (s shown) Kind() string                                          { return "test" }
func (s shown) Title() string                                         { return s.title }
func (s shown) Pull(uint64, int) Frame                                { return Frame{Notes: []string{"own"}} }
func (s shown) Store(string) StoreReader                              { return nil }
func (s shown) Run(context.Context)                                   {}
func (s shown) WaitSynced(context.Context) error                      { return nil }
func (s shown) Controls() Controls                                    { return Controls{Workload: s} }
func (s shown) AdjustRate(int) (float64, error)                       { return 1, nil }
func (s shown) Verify(context.Context, string) (verify.Result, error) { return verify.Result{}, nil }

// A decorated source shows what the decoration says and keeps every
// control it does not touch; an empty decoration changes nothing.
func TestDecorateKeepsWhatItDoesNotChange(t *testing.T) {
	src := shown{title: "t"}
	if d := Decorate(src, Decoration{}); d.Title() != "t" || d.Controls() != src.Controls() || len(d.Pull(0, 0).Notes) != 1 {
		t.Errorf("an empty decoration changed the source: %q %+v", d.Title(), d.Controls())
	}
	d := Decorate(src, Decoration{
		Title: func(s string) string { return s + " (marked)" },
		Frame: func(f Frame) Frame { f.Notes = append(f.Notes, "added"); return f },
		Controls: func(c Controls) Controls {
			c.Verifier = src
			return c
		},
	})
	if d.Title() != "t (marked)" {
		t.Errorf("title %q", d.Title())
	}
	if n := d.Pull(0, 0).Notes; len(n) != 2 || n[1] != "added" {
		t.Errorf("notes %q", n)
	}
	if c := d.Controls(); c.Workload == nil || c.Verifier == nil || c.Processing != nil {
		t.Errorf("controls %+v: want the source's workload, the added verifier and nothing else", c)
	}
	if d.Kind() != "test" {
		t.Errorf("kind %q", d.Kind())
	}
}
