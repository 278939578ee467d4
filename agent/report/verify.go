package report

import (
	"github.com/informtop/informtop/agent/shared/say"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/verify"
)

// Verify is one informer's comparison with the API server (--verify):
// the result, or the sentence saying why it could not be made.
type Verify struct {
	verify.Result
	Error string `json:"error,omitempty"`
}

// SetVerify records the comparison of the named informer.
func (r *Report) SetVerify(informer string, res verify.Result, err error) {
	for i := range r.Informers {
		if r.Informers[i].Name != informer {
			continue
		}
		v := &Verify{Result: res}
		if err != nil {
			v.Result, v.Error = verify.Result{}, err.Error()
		}
		r.Informers[i].Verify = v
	}
}

// Differs reports whether any verified cache differs from the server.
func (r Report) Differs() bool {
	for _, inf := range r.Informers {
		if inf.Verify != nil && inf.Verify.Error == "" && !inf.Verify.Equal {
			return true
		}
	}
	return false
}

// sentence is the one line the table prints.
func (v *Verify) sentence() string {
	if v.Error != "" {
		return "could not verify: " + v.Error
	}
	return v.Result.Sentence()
}

// SetServer records what the API server says about each informer's
// resource (Frame.Server), for the informers it names.
func (r *Report) SetServer(server map[string]source.ServerStats) {
	for i := range r.Informers {
		if st, ok := server[r.Informers[i].Name]; ok {
			r.Informers[i].Server = &st
		}
	}
}

// serverLine is the API server's figures in a line; a shared wording with
// the dashboard's API server stage.
func serverLine(s *source.ServerStats) string { return say.Server(*s) }
