// Package lktest runs a real LiveKit server on loopback for tests: its own free ports, its own
// API key and secret, readiness checked over HTTP, killed on cleanup, and restartable on the same
// ports so reconnection can be tested against a server that really went away.
package lktest
