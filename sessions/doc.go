// Package sessions is the durable record of every exam: a SQLite store in the data directory,
// the write-ahead journal the runtime publishes events through, crash recovery and resume,
// replay at original timing, and the exports (runresult, jsonl, markdown).
//
// The journal is the only writer of a session's events. An event reaches subscribers (the
// console, the LiveKit data channel) only after the transaction holding it has committed, so
// nothing anyone saw can be missing from the store after a crash.
package sessions
