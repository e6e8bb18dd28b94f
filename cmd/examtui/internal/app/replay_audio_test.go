package app_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"filippo.io/age"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/internal/atrest"
)

// TestPlayRecordingsEncrypted: recordings encrypted at rest play (sox's play on the ALSA null
// device) with the identity, their decrypted copies gone afterwards; without the identity, or
// without recordings, a clear error and nothing plays.
func TestPlayRecordingsEncrypted(t *testing.T) {
	player, err := exec.LookPath("play")
	if err != nil {
		t.Fatalf("sox's play is required (apt-get install sox): %v", err)
	}
	t.Setenv("ALSA_CONFIG_PATH", filepath.Join("..", "..", "..", "..", "testdata", "asound-null.conf"))
	t.Setenv("TMPDIR", t.TempDir())
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var recs []string
	for _, track := range []string{"candidate.wav", "examiner.wav"} {
		wav := filepath.Join(dir, track)
		if out, err := exec.Command("sox", "-n", "-r", "16000", "-c", "1", wav, "synth", "0.5", "sine", "440").CombinedOutput(); err != nil {
			t.Fatalf("sox: %v: %s", err, out)
		}
		enc, err := atrest.EncryptFile(wav, []age.Recipient{id.Recipient()})
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, enc)
	}
	ctx := context.Background()
	if _, err := app.PlayRecordings(ctx, player, recs, 0, 1, nil); !errors.Is(err, atrest.ErrNoIdentity) {
		t.Fatalf("without the identity: %v, want ErrNoIdentity", err)
	}
	if _, err := app.PlayRecordings(ctx, player, nil, 0, 1, []age.Identity{id}); !errors.Is(err, app.ErrNoRecording) {
		t.Fatalf("without recordings: %v, want ErrNoRecording", err)
	}
	a, err := app.PlayRecordings(ctx, player, recs, 100*time.Millisecond, 2, []age.Identity{id})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Wait(); err != nil {
		t.Fatalf("playing the decrypted recordings: %v", err)
	}
	if left, _ := os.ReadDir(os.Getenv("TMPDIR")); len(left) != 0 {
		t.Errorf("decrypted copies left behind: %v", left)
	}
}
