package candidate

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/spec"
)

func TestLink(t *testing.T) {
	for _, tc := range []struct {
		base, want string
		ok         bool
	}{
		{"http://127.0.0.1:8780", "http://127.0.0.1:8780/join/C", true},
		{"https://exam.example.org/", "https://exam.example.org/join/C", true},
		{"https://example.org/exams", "", false},
		{"127.0.0.1:8780", "", false},
		{"ftp://example.org", "", false},
		{"https://", "", false},
		{"https://example.org/?x=1", "", false},
		{"https://user@example.org", "", false},
	} {
		got, err := Link(tc.base, "C")
		if got != tc.want || (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrInvalidBaseURL)) {
			t.Errorf("Link(%q) = %q, %v; want %q (ok %v)", tc.base, got, err, tc.want, tc.ok)
		}
	}
}

// TestRoomLink: a room's new link admits the identity and name of its latest link, or the
// default identity under the given name in a room that had none; every link has its own code;
// the link opens the page in the language of the session's exam.
func TestRoomLink(t *testing.T) {
	ctx := context.Background()
	st, err := sessions.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	exam, _, err := spec.CompileFile("../../../../examples/oral-fr-b2.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sess, err := st.Create(ctx, sessions.Meta{Exam: exam, Candidate: "Ada", Input: runtime.SourceRoom})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	first, err := RoomLink(ctx, st, "http://h:1", RoomExam{SessionID: sess.ID, Room: "r1", Candidate: "Ada"}, now)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(first, "?"+LanguageParam+"=fr") {
		t.Errorf("link %q: want the French exam's ?%s=fr", first, LanguageParam)
	}
	codes, _ := st.JoinCodes(ctx, "r1")
	if len(codes) != 1 || codes[0].Identity != DefaultIdentity || codes[0].DisplayName != "Ada" || !codes[0].Expires.Equal(now.Add(DefaultLinkTTL).Truncate(0).UTC()) {
		t.Fatalf("first link stored %+v", codes)
	}
	if _, err := NewLink(ctx, st, "http://h:1", Invite{Room: "r1", Identity: "ada-2", Name: "Ada L."}, now.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	second, err := RoomLink(ctx, st, "http://h:1", RoomExam{SessionID: sess.ID, Room: "r1", Candidate: "someone else", TTL: time.Hour}, now.Add(2*time.Second))
	if err != nil || second == first {
		t.Fatalf("second link %q %v (first %q)", second, err, first)
	}
	codes, _ = st.JoinCodes(ctx, "r1")
	if len(codes) != 3 || codes[0].Identity != "ada-2" || codes[0].DisplayName != "Ada L." {
		t.Fatalf("stored %+v", codes)
	}
	if _, err := RoomLink(ctx, st, "exam.example.org", RoomExam{SessionID: sess.ID, Room: "r1"}, now); !errors.Is(err, ErrInvalidBaseURL) {
		t.Fatalf("bad base: %v", err)
	}
	if _, err := RoomLink(ctx, st, "http://h:1", RoomExam{SessionID: "no-such-session", Room: "r1"}, now); !errors.Is(err, sessions.ErrNotFound) {
		t.Fatalf("unknown session: %v", err)
	}
}
