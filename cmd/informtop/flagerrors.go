package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// expectsAnnotation holds, on a flag, what a valid value looks like, so a
// bad value reads as a sentence rather than as strconv's or time's error.
const expectsAnnotation = "informtop_expects"

// expect records what flag name takes; every flag that parses a number,
// a duration or one of a few words gets one.
func expect(fs *pflag.FlagSet, name, what string) {
	if err := fs.SetAnnotation(name, expectsAnnotation, []string{what}); err != nil {
		panic(err) // a misspelt flag name is a programming error
	}
}

// expected says what f takes: its own annotation, else what its type
// takes, else its usage line.
func expected(f *pflag.Flag) string {
	if what := f.Annotations[expectsAnnotation]; len(what) > 0 {
		return what[0]
	}
	switch f.Value.Type() {
	case "bool":
		return "true or false (--" + f.Name + " alone means true)"
	case "duration":
		return "a duration such as 30s or 2m"
	case "int", "int32", "int64", "uint", "uint64":
		return "a whole number"
	case "float64", "float32":
		return "a number"
	}
	return f.Usage
}

// flagError turns pflag's errors into sentences naming the flag, the value
// given and what the flag takes.
func flagError(cmd *cobra.Command, err error) error {
	help := fmt.Sprintf("run %s --help for the flags", cmd.CommandPath())
	var invalid *pflag.InvalidValueError
	var needs *pflag.ValueRequiredError
	var unknown *pflag.NotExistError
	switch {
	case errors.As(err, &invalid):
		f := invalid.GetFlag()
		return fmt.Errorf("invalid value %q for --%s: %s", invalid.GetValue(), f.Name, expected(f))
	case errors.As(err, &needs):
		f := needs.GetFlag()
		return fmt.Errorf("--%s needs a value: %s", f.Name, expected(f))
	case errors.As(err, &unknown):
		name := "--" + unknown.GetSpecifiedName()
		if s := unknown.GetSpecifiedShortnames(); s != "" {
			name = "-" + unknown.GetSpecifiedName()
		}
		return fmt.Errorf("unknown flag %s for %s; %s", name, cmd.CommandPath(), help)
	}
	return fmt.Errorf("%v; %s", err, help)
}

// choiceValue is a string flag checked as it is parsed, so a bad word is
// reported like any other bad flag value, before anything starts.
type choiceValue struct {
	p       *string
	check   func(string) error
	choices []string // for shell completion, with a description after a tab
}

func (v *choiceValue) Set(s string) error {
	if err := v.check(s); err != nil {
		return err
	}
	*v.p = s
	return nil
}

func (v *choiceValue) String() string { return *v.p }
func (v *choiceValue) Type() string   { return "string" }

// noArgs rejects arguments to a command that takes none, saying what the
// command does instead.
func noArgs(what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return fmt.Errorf("%s takes no arguments (got %q): %s", cmd.Name(), args[0], what)
		}
		return nil
	}
}
