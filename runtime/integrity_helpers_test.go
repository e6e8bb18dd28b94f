package runtime_test

import "github.com/examtui/examtui/runtime"

// lastRequest returns the newest request the scripted examiner received.
func (s *scriptedExaminer) lastRequest() *runtime.ExaminerRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.reqs) == 0 {
		return &runtime.ExaminerRequest{}
	}
	return s.reqs[len(s.reqs)-1]
}
