// Package examples holds programs that use informtop's engine and debug
// agent in a user's controller, one per directory; it is a module of its
// own so the root module does not depend on what they import.
package examples
