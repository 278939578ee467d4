// Package tokenfile reads and checks the bearer token between informtop
// attach and the agent, for attach --token-file and agent.Options.TokenFile:
// a file keeps the token out of the process list (ps shows flags to every
// user of the machine) and is what a mounted Kubernetes Secret is.
package tokenfile

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"unicode"

	"github.com/informtop/informtop/agent/shared/smallfile"
)

// MaxSize bounds a token file: a token is a few dozen bytes, and a path
// given by mistake (a log, a device) must not be read whole.
const MaxSize = 64 << 10

// Read returns the token in the file at path: a regular file (a symbolic
// link to one, as Secret volumes mount them, counts) of at most MaxSize
// bytes, one trailing newline ignored. Errors are sentences naming the
// path and saying what to do; they never quote the file's content.
func Read(path string) (string, error) {
	raw, err := smallfile.Read(path, MaxSize)
	var notRegular *smallfile.NotRegularError
	switch {
	case errors.As(err, &notRegular):
		return "", fmt.Errorf("the token file %s is %s: give the path of a regular file holding only the token", path, notRegular.What)
	case errors.Is(err, smallfile.ErrTooLarge):
		return "", fmt.Errorf("the token file %s holds more than %d KiB, too much for a token: give the file that holds only the token", path, MaxSize>>10)
	case err != nil:
		return "", readError(path, err)
	}
	tok := strings.TrimSuffix(strings.TrimSuffix(string(raw), "\n"), "\r")
	if tok == "" {
		return "", fmt.Errorf("the token file %s is empty: write the agent's token in it", path)
	}
	if err := Check(tok); err != nil {
		return "", fmt.Errorf("the token file %s: %w", path, err)
	}
	return tok, nil
}

// Check refuses a token no HTTP client can send as it is: one with a
// control character (a second line) or white space at either end, which
// header parsing drops, so it would never match.
func Check(tok string) error {
	if strings.IndexFunc(tok, unicode.IsControl) >= 0 {
		return errors.New("the token holds a control character or more than one line; a bearer token is one line of printable characters")
	}
	if strings.TrimSpace(tok) != tok {
		return errors.New("the token begins or ends with white space, which HTTP drops from the header, so it could never match; remove it")
	}
	return nil
}

func readError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // the path is in the sentence already
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("the token file %s does not exist: check the path", path)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("the token file %s cannot be read by this user (permission denied): check its owner and mode", path)
	}
	return fmt.Errorf("cannot read the token file %s: %v", path, err)
}
