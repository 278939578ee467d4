package promtest

// Exited reports whether the server's process has exited and been reaped.
func Exited(s *Server) bool { return s.exited() }

// PID is the server's process ID.
func PID(s *Server) int { return s.cmd.Process.Pid }

// ConfigYAML is configYAML, for the tests of the configuration.
var ConfigYAML = configYAML
