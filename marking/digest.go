package marking

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/sessions"
)

// The lock digest (docs/marking.md, "Locking"). A manifest lists, one line each, every event
// of the session in seq order, then every marker's mark by criterion and marker, then every
// final mark by criterion, each with the SHA-256 of its canonical encoding; the digest is the
// SHA-256 of the manifest. The lock keeps both, so verification can name each item that
// changed, was added or went missing, not only say that something did.

// Subject is what a session's result is about besides its events and marks: who sat it and
// under which exam and scheme, as stored. A lock covers it, so renaming the candidate or
// lowering the stored pass mark after the lock shows in `marks verify`.
type Subject struct {
	Candidate   string
	CandidateID string
	// Roster is the candidate's roster entry, when the session has one attached.
	Roster   *sessions.Candidate
	ExamID   string
	ExamJSON []byte // the compiled exam as stored
	// PanelRuns are the model panel's stored runs on the session, the evidence a marker saw.
	PanelRuns []sessions.PanelRun
}

// manifestV2 heads a manifest that covers the subject; locks made before it lack the line and
// are verified over events and marks only, as they were made.
const manifestV2 = "manifest v2"

// subjectOf reads a session's subject from the store.
func subjectOf(ctx context.Context, st *sessions.Store, sess *sessions.Session) (*Subject, error) {
	sub := &Subject{Candidate: sess.Candidate, ExamID: sess.ExamID, ExamJSON: sess.ExamJSON}
	c, ok, err := st.CandidateOf(ctx, sess.ID)
	if err != nil {
		return nil, err
	}
	sub.CandidateID = c.CandidateID
	if ok {
		sub.Roster = &c
	}
	if sub.PanelRuns, err = st.PanelRuns(ctx, sess.ID); err != nil {
		return nil, err
	}
	return sub, nil
}

func hashJSON(v any) string {
	enc, _ := json.Marshal(v)
	h := sha256.Sum256(enc)
	return hex.EncodeToString(h[:])
}

func hashBytes(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// schemeOf is the marking section of a compiled exam exactly as stored.
func schemeOf(examJSON []byte) []byte {
	var top map[string]json.RawMessage
	if json.Unmarshal(examJSON, &top) != nil {
		return nil
	}
	return top["marking"]
}

// Manifest builds the manifest of a session's subject (nil: a lock of the first format),
// events and marks.
func Manifest(sub *Subject, events []runtime.Event, marks, finals []sessions.Mark) (string, error) {
	var b strings.Builder
	if sub != nil {
		b.WriteString(manifestV2 + "\n")
		fmt.Fprintf(&b, "candidate %s\n", hashJSON(struct {
			Name   string              `json:"name"`
			ID     string              `json:"candidateId"`
			Roster *sessions.Candidate `json:"roster"`
		}{sub.Candidate, sub.CandidateID, sub.Roster}))
		fmt.Fprintf(&b, "exam %s %s\n", strconv.Quote(sub.ExamID), hashBytes(sub.ExamJSON))
		fmt.Fprintf(&b, "scheme %s\n", hashBytes(schemeOf(sub.ExamJSON)))
		for _, r := range sub.PanelRuns {
			fmt.Fprintf(&b, "panel %d %s\n", r.Seq, hashJSON(struct {
				RunBy  string          `json:"runBy"`
				At     string          `json:"at"`
				Result json.RawMessage `json:"result"`
			}{r.RunBy, r.At.UTC().Format(time.RFC3339Nano), compactJSON(r.Result)}))
		}
	}
	evs := slices.Clone(events)
	slices.SortFunc(evs, func(a, b runtime.Event) int { return int(a.Seq - b.Seq) })
	for _, ev := range evs {
		h, err := eventHash(ev)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "event %d %s %s\n", ev.Seq, ev.Event, h)
	}
	ms := slices.Clone(marks)
	slices.SortFunc(ms, func(a, b sessions.Mark) int {
		return strings.Compare(a.Criterion+"\x00"+a.Marker, b.Criterion+"\x00"+b.Marker)
	})
	for _, m := range ms {
		fmt.Fprintf(&b, "mark %s %s %s\n", strconv.Quote(m.Criterion), strconv.Quote(m.Marker), markHash(m))
	}
	fs := slices.Clone(finals)
	slices.SortFunc(fs, func(a, b sessions.Mark) int { return strings.Compare(a.Criterion, b.Criterion) })
	for _, m := range fs {
		fmt.Fprintf(&b, "final %s %s\n", strconv.Quote(m.Criterion), markHash(m))
	}
	return b.String(), nil
}

// Digest is the SHA-256 of a manifest, in hex.
func Digest(manifest string) string {
	h := sha256.Sum256([]byte(manifest))
	return hex.EncodeToString(h[:])
}

// eventHash hashes an event's seq, type, time (UTC, nanoseconds) and compacted payload.
func eventHash(ev runtime.Event) (string, error) {
	var payload bytes.Buffer
	if err := json.Compact(&payload, ev.Payload); err != nil {
		return "", fmt.Errorf("event seq %d: payload: %w", ev.Seq, err)
	}
	enc, _ := json.Marshal(struct {
		Seq       int64           `json:"seq"`
		Event     string          `json:"event"`
		Timestamp string          `json:"timestamp"`
		Payload   json.RawMessage `json:"payload"`
	}{ev.Seq, string(ev.Event), ev.Timestamp.UTC().Format(time.RFC3339Nano), payload.Bytes()})
	h := sha256.Sum256(enc)
	return hex.EncodeToString(h[:]), nil
}

func markHash(m sessions.Mark) string {
	enc, _ := json.Marshal(struct {
		Criterion     string `json:"criterion"`
		Marker        string `json:"marker"`
		Level         string `json:"level"`
		Marks         int    `json:"marks"`
		Justification string `json:"justification"`
		At            string `json:"at"`
	}{m.Criterion, m.Marker, m.Level, m.Marks, m.Justification, m.At.UTC().Format(time.RFC3339Nano)})
	h := sha256.Sum256(enc)
	return hex.EncodeToString(h[:])
}

// manifestItem is one line of a manifest: what it is (for people) and its hash.
type manifestItem struct {
	what, hash string
}

// parseManifest maps each line's key (everything but the hash) to the item.
func parseManifest(m string) (keys []string, items map[string]manifestItem) {
	items = map[string]manifestItem{}
	for _, line := range strings.Split(strings.TrimSuffix(m, "\n"), "\n") {
		if line == "" {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		key, hash := line[:i], line[i+1:]
		what := describe(key)
		if f := strings.Fields(key); f[0] == "event" && len(f) == 3 {
			// An event is itself by its seq: a changed type is a change, not a new event.
			hash = f[2] + " " + hash
			key = f[0] + " " + f[1]
		}
		keys = append(keys, key)
		items[key] = manifestItem{what: what, hash: hash}
	}
	return keys, items
}

// describe turns a manifest key into words: "event seq 12 (evidence_update)", "mark of
// alice for options", "final mark for options".
func describe(key string) string {
	f := strings.SplitN(key, " ", 2)
	switch f[0] {
	case "event":
		seq, typ, _ := strings.Cut(f[1], " ")
		return "event seq " + seq + " (" + typ + ")"
	case "mark":
		crit, rest := unquoteFirst(f[1])
		marker, _ := unquoteFirst(rest)
		return "mark of " + marker + " for " + crit
	case "final":
		crit, _ := unquoteFirst(f[1])
		return "final mark for " + crit
	case "candidate":
		return "the candidate's identity (name, candidate id, roster entry)"
	case "exam":
		id, _ := unquoteFirst(f[1])
		return "the compiled exam " + id + " as stored"
	case "scheme":
		return "the marking scheme as stored"
	case "panel":
		return "the model panel's run " + f[1]
	case "manifest":
		return "the manifest's format"
	}
	return key
}

func unquoteFirst(s string) (string, string) {
	q, err := strconv.QuotedPrefix(s)
	if err != nil {
		return s, ""
	}
	u, _ := strconv.Unquote(q)
	return u, strings.TrimPrefix(s[len(q):], " ")
}

// diffManifests names what differs between the locked manifest and the current one, in the
// locked order, then what was added: "event seq 12 (evidence_update) changed".
func diffManifests(locked, current string) []string {
	lk, li := parseManifest(locked)
	ck, ci := parseManifest(current)
	var out []string
	for _, k := range lk {
		c, ok := ci[k]
		switch {
		case !ok:
			out = append(out, li[k].what+" removed")
		case c.hash != li[k].hash:
			out = append(out, li[k].what+" changed")
		}
	}
	for _, k := range ck {
		if _, ok := li[k]; !ok {
			out = append(out, ci[k].what+" added")
		}
	}
	return out
}

// compactJSON is b compacted, or b as a JSON string when it is not JSON (a run edited into
// something else still hashes, and differs).
func compactJSON(b []byte) json.RawMessage {
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		enc, _ := json.Marshal(string(b))
		return enc
	}
	return out.Bytes()
}
