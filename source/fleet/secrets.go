package fleet

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/informtop/informtop/agent/shared/smallfile"
	"github.com/informtop/informtop/agent/shared/tokenfile"
)

// Budgets of the files the client's credentials and TLS material come
// from: a token or password is a few hundred bytes, a PEM bundle of a
// CA's chain tens of KB.
const (
	MaxTokenFileBytes = tokenfile.MaxSize
	MaxPEMFileBytes   = 1 << 20
)

// SecretFile is a file the Prometheus client reads a credential or TLS
// material from. It is read again on every query, so a rotated token is
// picked up, and each read goes through smallfile: a regular file of at
// most Limit bytes, opened without waiting, so a FIFO or a device swapped
// in for it is a sentence rather than a hang or the machine's memory.
type SecretFile struct {
	Flag  string // the flag that named it, for sentences: --bearer-token-file
	Path  string
	Limit int64
	What  string // what it holds, for sentences: "the bearer token"
	// Token: one line of printable characters, blanks around it dropped
	// (a password, a bearer token), as Prometheus' own file secrets are.
	Token bool
}

// SecretFiles are the files an Auth names, keyed by their SecretFile.Flag.
type SecretFiles map[string]SecretFile

// secretFileError is a file that cannot serve as what its flag names;
// waiting will not mend it.
type secretFileError struct{ sentence string }

func (e *secretFileError) Error() string { return e.sentence }

// read returns the content of the file ref names, as its SecretFile reads it.
func (sf SecretFiles) read(ref string) (string, error) {
	f, ok := sf[ref]
	if !ok {
		return "", fmt.Errorf("no file is given for %s", ref)
	}
	return f.read()
}

// Check reads every file once, in the order of their flags, and returns
// the first one's sentence that cannot serve.
func (sf SecretFiles) Check() error {
	for _, flag := range slices.Sorted(maps.Keys(sf)) {
		if _, err := sf[flag].read(); err != nil {
			return err
		}
	}
	return nil
}

func (f SecretFile) read() (string, error) {
	what := f.What
	if f.Token {
		what = "only " + what
	}
	raw, err := smallfile.Read(f.Path, f.Limit)
	var notRegular *smallfile.NotRegularError
	var pe *fs.PathError
	switch {
	case errors.As(err, &notRegular):
		return "", &secretFileError{fmt.Sprintf("%s %s is %s, not a regular file: give the path of a file holding %s", f.Flag, f.Path, notRegular.What, what)}
	case errors.Is(err, smallfile.ErrTooLarge):
		return "", &secretFileError{fmt.Sprintf("%s %s holds more than %s, far more than it should: give the file holding %s", f.Flag, f.Path, mib(f.Limit), what)}
	case errors.Is(err, fs.ErrNotExist):
		return "", &secretFileError{fmt.Sprintf("%s %s does not exist: check the path", f.Flag, f.Path)}
	case errors.Is(err, fs.ErrPermission):
		return "", &secretFileError{fmt.Sprintf("%s %s cannot be read by this user (permission denied): check its owner and mode", f.Flag, f.Path)}
	case errors.As(err, &pe):
		return "", &secretFileError{fmt.Sprintf("%s %s cannot be read: %v", f.Flag, f.Path, pe.Err)}
	case err != nil:
		return "", &secretFileError{fmt.Sprintf("%s %s cannot be read: %v", f.Flag, f.Path, err)}
	}
	if !f.Token {
		return string(raw), nil
	}
	secret := strings.TrimSpace(string(raw))
	if secret == "" {
		return "", &secretFileError{fmt.Sprintf("%s %s is empty: write %s in it", f.Flag, f.Path, f.What)}
	}
	if err := tokenfile.Check(secret); err != nil {
		return "", &secretFileError{fmt.Sprintf("%s %s: %v", f.Flag, f.Path, err)}
	}
	return secret, nil
}
