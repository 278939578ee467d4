package promtest

// Exited reports whether the server's process has exited and been reaped.
func Exited(s *Server) bool { return s.p.Exited() }

// PID is the server's process ID.
func PID(s *Server) int { return s.p.PID() }

// ConfigYAML is configYAML, for the tests of the configuration.
var ConfigYAML = configYAML
