package markconsole_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"filippo.io/age"

	"github.com/examtui/examtui/internal/atrest"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/tui"
	"github.com/examtui/examtui/tui/markconsole"
)

// TestPlayEncryptedRecording: a recording encrypted at rest plays with the identity (decrypted
// to a private copy, removed after) and without it is a clear error; opening the session to
// mark it is in the access log under the store's identity.
func TestPlayEncryptedRecording(t *testing.T) {
	player, st := playFixture(t)
	ctx := context.Background()
	wav := filepath.Join(t.TempDir(), "candidate.wav")
	if out, err := exec.Command("sox", "-n", "-r", "16000", "-c", "1", wav, "synth", "60", "sine", "440").CombinedOutput(); err != nil {
		t.Fatalf("sox: %v: %s", err, out)
	}
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	enc, err := atrest.EncryptFile(wav, []age.Recipient{id.Recipient()})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SetRecordings(ctx, fixtureID, []string{enc}); err != nil {
		t.Fatal(err)
	}
	playDir := t.TempDir()
	withKey := markconsole.WithDecrypt(func(path string) (string, func(), error) {
		p, err := atrest.DecryptTo(playDir, path, []age.Identity{id})
		return p, func() { _ = os.Remove(p) }, err
	})
	for _, c := range []struct {
		name string
		opts []markconsole.BackendOption
		want string
	}{
		{"without the identity", nil, "--identity"},
		{"with the identity", []markconsole.BackendOption{withKey}, ""},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			b, err := markconsole.NewStoreBackend(st, "ana", "", nil, player, c.opts...)
			if err != nil {
				t.Fatal(err)
			}
			m, err := markconsole.New(b, fixtureID, markconsole.WithNoColor(true))
			if err != nil {
				t.Fatal(err)
			}
			m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
			drive(t, m, m.Init())
			_, cmd := m.Update(keyMsg("p"))
			if cmd == nil {
				t.Fatal("p gave no command: the encrypted recording was not found")
			}
			m.Update(cmd())
			f := tui.Plain(m.Render())
			if c.want != "" && !strings.Contains(f, c.want) {
				t.Errorf("the frame does not say what is missing (%q):\n%s", c.want, f)
			}
			if c.want == "" && (strings.Contains(f, "encrypted") || strings.Contains(f, "decrypt") || strings.Contains(f, "play-")) {
				t.Errorf("playing with the identity failed:\n%s", f)
			}
		})
	}
	if left, _ := os.ReadDir(playDir); len(left) != 0 {
		t.Errorf("decrypted copies left behind: %v", left)
	}
	log, err := st.AccessLog(ctx, sessions.AccessFilter{SessionID: fixtureID})
	if err != nil || len(log) < 2 || log[0].Action != sessions.AccessMarking {
		t.Errorf("access log = %+v, %v: want the marking console's opens", log, err)
	}
}
