package controlhttp

// WithClock sets the server's clock (tests).
var WithClock = withClock

// ExpireIdle closes the sessions idle past the expiry now, as the server's ticker does.
func (s *Server) ExpireIdle() { s.expireIdle() }
