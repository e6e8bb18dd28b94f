// Package sessions is the durable record of every exam: a SQLite store in the data directory,
// the write-ahead journal the runtime publishes events through, crash recovery and resume,
// replay at original timing, and the exports (runresult, jsonl, markdown).
//
// The journal is the only writer of a session's events. An event reaches subscribers (the
// console, the LiveKit data channel) only after the transaction holding it has committed, so
// nothing anyone saw can be missing from the store after a crash.
//
// Wiring a live exam:
//
//	st, err := sessions.Open(ctx, dir)                       // dir from sessions.DataDir(flag)
//	sess, err := st.Create(ctx, sessions.Meta{Exam: exam, Candidate: name, Input: runtime.SourceMic})
//	j, err := st.Journal(ctx, sess.ID, sessions.WithSubscribers(consoleBridge, dataChannel))
//	c, err := runtime.NewController(exam, examiner, runtime.WithSink(j), runtime.WithSessionID(sess.ID))
//	...
//	j.Close() // commits the rest; a session that did not end is left interrupted (resumable)
//
// Subscribe readers to the journal itself. A runtime.Fanout chained in front of the journal
// delivers as soon as Publish returns, which for the journal means queued, not yet committed;
// open the journal WithWaitCommit when it must sit behind a Fanout.
//
// Resuming an interrupted session:
//
//	exam, events, err := st.ResumeData(ctx, id)
//	j, err := st.Journal(ctx, id) // continues at len(events)+1
//	c, err := runtime.NewController(exam, examiner, runtime.WithResume(events), runtime.WithSink(j))
package sessions
