package runtime

// Notice says a line to the candidate outside the exam's flow (a spoken event with source
// "notice"), such as that the examiner reconnected after its worker was replaced. It changes
// no state: the current question stands.
func (c *Controller) Notice(text string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.usable(); err != nil {
		return err
	}
	c.speak(text, SpokenNotice, false)
	return c.sinkErr
}

// ReportSystemError records a failure outside the controller (the process running the exam
// failed it) as a system_error event. The exam's state does not change: the session can be
// resumed.
func (c *Controller) ReportSystemError(code ErrorCode, message string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.usable(); err != nil {
		return err
	}
	p := &SystemErrorPayload{Code: code, Message: message}
	if c.node != nil {
		p.NodeID = c.node.NodeID
	}
	c.emit(p)
	return c.sinkErr
}
