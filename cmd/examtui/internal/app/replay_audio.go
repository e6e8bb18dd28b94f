package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"filippo.io/age"

	"github.com/examtui/examtui/internal/atrest"
	"github.com/examtui/examtui/sessions"
)

// ErrNoRecording is replay --audio on a session that has no recording.
var ErrNoRecording = errors.New("the session has no recording (a typed session, or its recordings were purged)")

// ReplayAudio is a session's recordings playing alongside a replay.
type ReplayAudio struct {
	cmd    *exec.Cmd
	dir    string // the decrypted copies, removed when the playing ends
	cancel context.CancelFunc
	done   chan error
}

// PlayRecordings plays a session's recordings (both tracks mixed) with sox's play from offset
// into the session, at speed (sox's tempo keeps the pitch). Recordings encrypted at rest are
// decrypted with ids into a private temporary folder first; without ids they are a clear
// error (atrest.ErrNoIdentity), as is a session without recordings.
func PlayRecordings(ctx context.Context, player string, recordings []string, offset time.Duration, speed float64, ids []age.Identity) (*ReplayAudio, error) {
	if len(recordings) == 0 {
		return nil, ErrNoRecording
	}
	if player == "" {
		return nil, errors.New("no audio player: install sox (its play command) to hear the recordings")
	}
	dir, err := os.MkdirTemp("", "examtui-replay-")
	if err != nil {
		return nil, err
	}
	var files []string
	for _, r := range recordings {
		p := r
		if strings.HasSuffix(r, atrest.Suffix) {
			if p, err = atrest.DecryptTo(dir, r, ids); err != nil {
				_ = os.RemoveAll(dir)
				return nil, fmt.Errorf("recording %s: %w", r, err)
			}
		} else if _, err := os.Stat(r); err != nil {
			_ = os.RemoveAll(dir)
			return nil, fmt.Errorf("recording: %w", err)
		}
		files = append(files, p)
	}
	args := []string{"-q"}
	if len(files) > 1 {
		args = append(args, "-m") // both sides, mixed
	}
	args = append(args, files...)
	args = append(args, "trim", strconv.FormatFloat(offset.Seconds(), 'f', 3, 64))
	if speed != 1 {
		args = append(args, "tempo", strconv.FormatFloat(speed, 'f', 3, 64))
	}
	pctx, cancel := context.WithCancel(ctx)
	a := &ReplayAudio{cmd: exec.CommandContext(pctx, player, args...), dir: dir, cancel: cancel, done: make(chan error, 1)}
	if err := a.cmd.Start(); err != nil {
		cancel()
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("play the recordings: %w", err)
	}
	go func() {
		err := a.cmd.Wait()
		_ = os.RemoveAll(dir)
		a.done <- err
	}()
	return a, nil
}

// Wait waits for the recordings to finish playing.
func (a *ReplayAudio) Wait() error {
	err := <-a.done
	a.done <- err
	return err
}

// Stop ends the playing (if still going) and removes the decrypted copies.
func (a *ReplayAudio) Stop() {
	a.cancel()
	_ = a.Wait()
}

// RecordingOffset is where in a session's recordings its event from (a seq) falls: the time
// since the session started (0 for the first event, or when the event cannot be read).
func RecordingOffset(ctx context.Context, st *sessions.Store, id string, from int64) time.Duration {
	sess, err := st.Get(ctx, id)
	if err != nil || from <= 1 {
		return 0
	}
	for ev, err := range st.Events(ctx, id, from) {
		if err != nil || ev.Timestamp.Before(sess.StartedAt) {
			return 0
		}
		return ev.Timestamp.Sub(sess.StartedAt)
	}
	return 0
}
