// Package candidate is the candidate's side of examtui served over HTTP (`examtui serve`):
// one-time join codes kept hashed in the session store, and the server that turns a code into
// the candidate's LiveKit token for the join page (package web) — so no API secret or
// long-lived token ever sits in a link, a page or a log. docs/candidate.md describes it for
// users; the routes are the contract the page is written against.
package candidate
