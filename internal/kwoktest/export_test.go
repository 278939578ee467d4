package kwoktest

// PID is the process ID of the node's kwok, so the tests can check that
// none is left behind.
func PID(n *Node) int { return n.p.PID() }

// PortForwardsGVR is the resource of kwok's PortForward objects.
var PortForwardsGVR = portForwardsGVR
