package controlroom

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/examtui/examtui/monitor"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/tui"
)

// pressLink presses the link key and runs what it asks for (the store write) as the program
// would, handing the answer back; it returns the screen.
func pressLink(t *testing.T, m *Model) string {
	t.Helper()
	_, cmd := m.Update(tea.KeyPressMsg{Code: 'l', Text: "l"})
	if cmd != nil {
		if _, clip := m.Update(cmd()); clip == nil && m.link != "" {
			t.Error("a link made without asking for the clipboard")
		}
	}
	return tui.Plain(m.Render())
}

// TestCandidateLinkKey: l gives the selected room exam's candidate a new one-time link (the URL
// first on the footer, whole), made in a real store with the identity of the room's last link;
// exams without a room, and a control room without a candidate server, say why there is none.
func TestCandidateLinkKey(t *testing.T) {
	st, err := sessions.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const base = "https://exam.example.org"
	// The console only asks for a link and shows it; which identity a room's link admits is
	// the wiring's rule (candidate.RoomLink, tested there). This one stores a code the way the
	// wiring does, under the identity of the room's latest code.
	n := 0
	links := func(ctx context.Context, r *monitor.Row) (string, error) {
		prev, err := st.JoinCodes(ctx, r.Room)
		if err != nil || len(prev) == 0 {
			return "", fmt.Errorf("room %s has no earlier link: %v", r.Room, err)
		}
		n++
		code := fmt.Sprintf("%022d", n)
		now := time.Now()
		err = st.CreateJoinCode(ctx, sessions.JoinCode{CodeHash: fmt.Sprintf("%064d", n), Room: r.Room,
			Identity: prev[0].Identity, DisplayName: prev[0].DisplayName, Created: now, Expires: now.Add(time.Hour)})
		return base + "/join/" + code, err
	}

	if screen := pressLink(t, fixtureModel(t, 12, 160, 40, true)); !strings.Contains(screen, "no candidate server for links") {
		t.Errorf("without a candidate server:\n%s", screen)
	}
	m := fixtureModel(t, 12, 160, 40, true, WithCandidateLink(links))
	if screen := pressLink(t, m); !strings.Contains(screen, "does not run in a LiveKit room") {
		t.Errorf("an exam without a room:\n%s", screen)
	}
	row := m.Board().Row(m.Selected())
	m.Board().SetRoom(row.SessionID, monitor.RoomInfo{Room: "exam-room-1"})
	now := time.Now()
	if err := st.CreateJoinCode(context.Background(), sessions.JoinCode{CodeHash: strings.Repeat("a", 64), Room: "exam-room-1",
		Identity: "ada", DisplayName: "Ada", Created: now, Expires: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	screen := pressLink(t, m)
	lines := strings.Split(screen, "\n")
	footer := lines[len(lines)-1]
	code, ok := strings.CutPrefix(strings.Fields(footer)[0], base+"/join/")
	if !ok || len(code) != 22 || !strings.HasPrefix(footer, base) {
		t.Fatalf("footer %q: want the link first", footer)
	}
	codes, err := st.JoinCodes(context.Background(), "exam-room-1")
	if err != nil || len(codes) != 2 || codes[0].Identity != "ada" || codes[0].DisplayName != "Ada" {
		t.Fatalf("stored %+v %v: want a second link for ada", codes, err)
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeyDown})
	if strings.Contains(tui.Plain(m.Render()), base) {
		t.Error("the link stayed on the footer after the next key")
	}
}

// TestRevokeLinksKey: L withdraws the selected room exam's candidate links in a real store (the
// seat they gave stops minting) and says how many; without a candidate server it says why.
func TestRevokeLinksKey(t *testing.T) {
	st, err := sessions.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	press := func(m *Model) string {
		_, cmd := m.Update(tea.KeyPressMsg{Code: 'L', Text: "L"})
		if cmd != nil {
			m.Update(cmd())
		}
		return tui.Plain(m.Render())
	}
	if screen := press(fixtureModel(t, 12, 160, 40, true)); !strings.Contains(screen, "no candidate server for links") {
		t.Errorf("without a candidate server:\n%s", screen)
	}
	m := fixtureModel(t, 12, 160, 40, true, WithRevokeLinks(func(ctx context.Context, r *monitor.Row) (int, error) {
		return st.RevokeJoinCodes(ctx, r.Room, "", time.Now())
	}))
	row := m.Board().Row(m.Selected())
	m.Board().SetRoom(row.SessionID, monitor.RoomInfo{Room: "exam-room-1"})
	now := time.Now()
	if err := st.CreateJoinCode(context.Background(), sessions.JoinCode{CodeHash: strings.Repeat("b", 64), Room: "exam-room-1",
		Identity: "ada", Created: now, Expires: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if screen := press(m); !strings.Contains(screen, "1 join link(s) of room exam-room-1 revoked") {
		t.Errorf("after L:\n%s", screen)
	}
	if _, err := st.RedeemJoinCode(context.Background(), strings.Repeat("b", 64), strings.Repeat("c", 64), time.Now(), time.Hour); !errors.Is(err, sessions.ErrJoinCodeRevoked) {
		t.Errorf("the link after L: %v, want revoked", err)
	}
}
