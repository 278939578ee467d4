// Package examples holds controllers that use informtop's debug agent, one
// per directory, for users to copy from, and under internal/ the tests'
// twins of them; it is a module of its own so the root module does not
// depend on what they import.
package examples
