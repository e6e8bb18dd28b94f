package audio

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The streaming recogniser is one pocketsphinx_batch process per stream, alive across turns.
// Its control file is its stdin: each line names a FIFO, and the process decodes a FIFO as the
// audio comes in (it reads a pipe in small blocks rather than whole), finishing the utterance
// when the FIFO closes and printing one -hypseg line that names it. So the turn is decoded
// while the candidate speaks and its transcript is out a millisecond or two after the Cut;
// pocketsphinx_continuous, by contrast, reads one whole file per process (the one-shot path).
//
// A "pass" is one such utterance. A Cut ends the pass; if the candidate goes on (a pause that
// was not the end), the next Feed starts a new pass that replays the turn from its start,
// because a grammar recogniser must hear the whole phrase: two halves decoded apart would each
// be forced onto a phrase of their own.

const (
	// sphinxRestartEvery bounds restarts of a recogniser that keeps dying: a stream starts at
	// most one process in this time, and fails Cuts at once meanwhile (one-shot fallback).
	sphinxRestartEvery = 2 * time.Second
	// sphinxCutBudget is how long a Cut may take before the process is taken for hung and
	// killed, plus a quarter of the turn's duration for a replayed pass.
	sphinxCutBudget = 2 * time.Second
	// sphinxMaxLine bounds one hypseg line (a minute of speech is a few kilobytes).
	sphinxMaxLine = 1 << 20
)

// NewStream starts a long-lived pocketsphinx_batch for one audio stream (see
// RecognitionStream). It fails when pocketsphinx_batch is not installed; the one-shot
// Transcribe still works then.
func (s *Sphinx) NewStream(ctx context.Context) (RecognitionStream, error) {
	return s.newStream(ctx)
}

func (s *Sphinx) newStream(ctx context.Context) (*sphinxStream, error) {
	s.closeMu.Lock()
	closed := s.closed
	s.closeMu.Unlock()
	if closed {
		return nil, fmt.Errorf("%w: %w", ErrSTT, ErrClosed)
	}
	bin := filepath.Join(filepath.Dir(s.bin), "pocketsphinx_batch")
	if _, err := os.Stat(bin); err != nil {
		if bin, err = exec.LookPath("pocketsphinx_batch"); err != nil {
			return nil, fmt.Errorf("%w: pocketsphinx_batch not found (install pocketsphinx): %w", ErrSTT, err)
		}
	}
	dir, err := os.MkdirTemp("", "examtui-sphinx-stream-")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSTT, err)
	}
	log := s.log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	st := &sphinxStream{s: s, bin: bin, dir: dir, ctx: ctx, log: log.With("component", "sphinx-stream"),
		restartEvery: sphinxRestartEvery}
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := st.startProcLocked(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return st, nil
}

type sphinxStream struct {
	s   *Sphinx
	bin string
	dir string
	ctx context.Context
	log *slog.Logger

	mu           sync.Mutex
	proc         *sphinxProc
	lastStart    time.Time
	restartEvery time.Duration
	turn         []int16
	pass         *sphinxPass
	last         *PendingTranscript // the latest Cut, while nothing was fed after it
	seq          int
	closed       bool
	wg           sync.WaitGroup // readers and writers
}

// sphinxProc is one running pocketsphinx_batch.
type sphinxProc struct {
	cmd  *exec.Cmd
	ctl  io.WriteCloser
	done chan struct{} // closed when its output ended (it exited or was killed)

	mu      sync.Mutex
	waiting map[string]*PendingTranscript
	exited  bool
}

// sphinxPass is one utterance of the process: a FIFO being written.
type sphinxPass struct {
	id      string
	path    string
	proc    *sphinxProc
	pending *PendingTranscript
	samples int

	mu    sync.Mutex
	queue [][]byte
	ended bool
	wake  chan struct{}
}

func (st *sphinxStream) startProcLocked() error {
	st.lastStart = time.Now()
	cmd := exec.CommandContext(st.ctx, st.bin, "-ctl", "/dev/stdin", "-cepdir", st.dir, "-cepext", ".raw",
		"-adcin", "yes", "-jsgf", st.s.grammar, "-dict", st.s.dict,
		"-beam", "1e-80", "-pbeam", "1e-80", "-wbeam", "1e-60", "-logfn", os.DevNull, "-hypseg", "/dev/stdout")
	ctl, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("%w: pocketsphinx_batch: %w", ErrSTT, err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("%w: pocketsphinx_batch: %w", ErrSTT, err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%w: pocketsphinx_batch: %w", ErrSTT, err)
	}
	p := &sphinxProc{cmd: cmd, ctl: ctl, done: make(chan struct{}), waiting: map[string]*PendingTranscript{}}
	st.proc = p
	st.wg.Add(1)
	go st.read(p, out)
	st.log.Debug("streaming recogniser started", "pid", cmd.Process.Pid)
	return nil
}

// read delivers the process's hypseg lines to the passes waiting for them, and fails every
// waiting pass when the process ends.
func (st *sphinxStream) read(p *sphinxProc, out io.Reader) {
	defer st.wg.Done()
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 0, 4096), sphinxMaxLine)
	for sc.Scan() {
		id, t, err := parseHypseg(sc.Text())
		p.mu.Lock()
		pend := p.waiting[id]
		delete(p.waiting, id)
		p.mu.Unlock()
		if pend == nil {
			st.log.Debug("streaming recogniser: output for no pass", "line", sc.Text())
			continue
		}
		pend.resolve(t, err)
	}
	werr := p.cmd.Wait()
	p.mu.Lock()
	p.exited = true
	waiting := p.waiting
	p.waiting = nil
	p.mu.Unlock()
	close(p.done)
	for _, pend := range waiting {
		pend.resolve(Transcript{}, fmt.Errorf("%w: the streaming recogniser exited: %v", ErrSTT, werr))
	}
	st.mu.Lock()
	closed := st.closed
	st.mu.Unlock()
	if !closed {
		st.log.Warn("streaming recogniser exited; it restarts on the next turn", "err", werr, "scanErr", sc.Err())
	}
}

func (p *sphinxProc) alive() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

func (p *sphinxProc) kill() {
	if p.cmd.Process != nil {
		_ = p.cmd.Process.Kill()
	}
}

// startPassLocked opens a new utterance on a live process, restarting a dead one when allowed.
func (st *sphinxStream) startPassLocked() (*sphinxPass, error) {
	if st.proc == nil || !st.proc.alive() {
		if since := time.Since(st.lastStart); since < st.restartEvery {
			return nil, fmt.Errorf("%w: the streaming recogniser is down (restart in %v)", ErrSTT,
				(st.restartEvery - since).Round(time.Millisecond))
		}
		if err := st.startProcLocked(); err != nil {
			return nil, err
		}
		st.log.Info("streaming recogniser restarted")
	}
	st.seq++
	id := "u" + strconv.Itoa(st.seq)
	path := filepath.Join(st.dir, id+".raw")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		return nil, fmt.Errorf("%w: fifo: %w", ErrSTT, err)
	}
	p := &sphinxPass{id: id, path: path, proc: st.proc, pending: newPending(), wake: make(chan struct{}, 1)}
	st.proc.mu.Lock()
	if st.proc.waiting == nil { // exited between the check and now
		st.proc.mu.Unlock()
		os.Remove(path)
		return nil, fmt.Errorf("%w: the streaming recogniser exited", ErrSTT)
	}
	st.proc.waiting[id] = p.pending
	st.proc.mu.Unlock()
	if _, err := io.WriteString(st.proc.ctl, id+"\n"); err != nil {
		os.Remove(path)
		st.proc.kill()
		return nil, fmt.Errorf("%w: streaming recogniser control: %w", ErrSTT, err)
	}
	st.wg.Add(1)
	go st.write(p)
	return p, nil
}

// write feeds one pass's FIFO until the pass ends (then closes it: the decoder's end of
// utterance) or the process stops.
func (st *sphinxStream) write(p *sphinxPass) {
	defer st.wg.Done()
	defer os.Remove(p.path)
	f, err := openFIFO(p.path, p.proc.done)
	if err != nil {
		p.pending.resolve(Transcript{}, err)
		return
	}
	defer f.Close()
	for {
		p.mu.Lock()
		q, ended := p.queue, p.ended
		p.queue = nil
		p.mu.Unlock()
		for _, b := range q {
			if _, err := f.Write(b); err != nil {
				p.pending.resolve(Transcript{}, fmt.Errorf("%w: feeding the streaming recogniser: %w", ErrSTT, err))
				return
			}
		}
		if ended && len(q) == 0 {
			return
		}
		if len(q) > 0 {
			continue // more may have come while writing
		}
		select {
		case <-p.wake:
		case <-p.proc.done:
			return
		}
	}
}

// openFIFO opens a FIFO for writing once its reader (the decoder) has opened it, without
// blocking a thread, and gives up when the process stops.
func openFIFO(path string, done <-chan struct{}) (*os.File, error) {
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if err == nil {
			return os.NewFile(uintptr(fd), path), nil
		}
		if !errors.Is(err, syscall.ENXIO) && !errors.Is(err, syscall.EINTR) {
			return nil, fmt.Errorf("%w: open fifo: %w", ErrSTT, err)
		}
		select {
		case <-tick.C:
		case <-done:
			return nil, fmt.Errorf("%w: the streaming recogniser exited", ErrSTT)
		}
	}
}

func (p *sphinxPass) push(samples []int16) {
	b := make([]byte, 2*len(samples))
	for i, v := range samples {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
	}
	p.mu.Lock()
	p.queue = append(p.queue, b)
	p.samples += len(samples)
	p.mu.Unlock()
	p.signal()
}

func (p *sphinxPass) end() {
	p.mu.Lock()
	p.ended = true
	p.mu.Unlock()
	p.signal()
}

func (p *sphinxPass) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

func (st *sphinxStream) Reset() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.pass != nil {
		st.abandonLocked(st.pass)
		st.pass = nil
	}
	st.turn = st.turn[:0]
	st.last = nil
}

// abandonLocked ends a pass nobody will wait for.
func (st *sphinxStream) abandonLocked(p *sphinxPass) {
	p.proc.mu.Lock()
	delete(p.proc.waiting, p.id)
	p.proc.mu.Unlock()
	p.end()
	p.pending.resolve(Transcript{}, fmt.Errorf("%w: recognition abandoned", ErrSTT))
}

func (st *sphinxStream) Feed(samples []int16) error {
	if len(samples) == 0 {
		return nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return fmt.Errorf("%w: %w", ErrSTT, ErrClosed)
	}
	st.turn = append(st.turn, samples...)
	st.last = nil
	if st.pass != nil && st.pass.proc.alive() {
		st.pass.push(samples)
		return nil
	}
	// No pass yet, or its process died: (re)start one with the turn so far.
	st.pass = nil
	p, err := st.startPassLocked()
	if err != nil {
		return err // the turn is kept: a later Feed or the Cut tries again
	}
	p.push(st.turn)
	st.pass = p
	return nil
}

func (st *sphinxStream) Cut() *PendingTranscript {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return failedCut(fmt.Errorf("%w: %w", ErrSTT, ErrClosed))
	}
	if st.last != nil {
		return st.last // nothing fed since: the same answer
	}
	if len(st.turn) == 0 {
		return failedCut(fmt.Errorf("%w: %w: nothing fed", ErrSTT, ErrNoSpeech))
	}
	p := st.pass
	st.pass = nil
	if p == nil || !p.proc.alive() {
		var err error
		if p, err = st.startPassLocked(); err != nil {
			return failedCut(err)
		}
		p.push(st.turn)
	}
	p.end()
	dur := time.Duration(len(st.turn)) * time.Second / SampleRate
	budget := sphinxCutBudget + dur/4
	proc, pend := p.proc, p.pending
	watchdog := time.AfterFunc(budget, func() {
		if pend.resolve(Transcript{}, fmt.Errorf("%w: the streaming recogniser took over %v", ErrSTT, budget)) {
			st.log.Warn("streaming recogniser hung; killing it", "budget", budget)
			proc.kill()
		}
	})
	st.last = newPending()
	out := st.last
	st.wg.Add(1)
	go func() { // stops the watchdog once answered; the answer carries the turn's duration
		defer st.wg.Done()
		<-pend.ready
		watchdog.Stop()
		t := pend.t
		if pend.err == nil {
			t.Duration = dur
		}
		out.resolve(t, pend.err)
	}()
	return out
}

func (st *sphinxStream) Final(ctx context.Context) (Transcript, error) {
	return st.Cut().Wait(ctx)
}

func (st *sphinxStream) Close() error {
	st.mu.Lock()
	if st.closed {
		st.mu.Unlock()
		return nil
	}
	st.closed = true
	if st.pass != nil {
		st.abandonLocked(st.pass)
		st.pass = nil
	}
	proc := st.proc
	st.mu.Unlock()
	if proc != nil {
		_ = proc.ctl.Close()
		proc.kill()
	}
	st.wg.Wait()
	return os.RemoveAll(st.dir)
}

// parseHypseg reads one pocketsphinx -hypseg line:
//
//	uttid S <score> T <total> A <acoustic> L <lm> {<start frame> <acoustic> <lm> <word>}... <end frame>
//
// Fillers (<s>, </s>, <sil>, [NOISE]) are dropped and alternate pronunciations ("read(2)")
// named by their word. Frames are 10 ms.
func parseHypseg(line string) (id string, t Transcript, err error) {
	f := strings.Fields(line)
	if len(f) < 10 || f[1] != "S" || f[3] != "T" || f[5] != "A" || f[7] != "L" || (len(f)-9)%4 != 1 {
		if len(f) > 0 {
			id = f[0]
		}
		return id, Transcript{}, fmt.Errorf("%w: unreadable pocketsphinx output %q", ErrSTT, clipText(line, 120))
	}
	id = f[0]
	t = Transcript{Language: "en", IsFinal: true}
	rest := f[9:]
	var words []string
	for i := 0; i+4 < len(rest); i += 4 {
		if _, err := strconv.Atoi(rest[i]); err != nil {
			return id, Transcript{}, fmt.Errorf("%w: unreadable pocketsphinx frame %q", ErrSTT, clipText(rest[i], 20))
		}
		w := rest[i+3]
		if strings.HasPrefix(w, "<") || strings.HasPrefix(w, "[") || strings.HasPrefix(w, "+") {
			continue
		}
		if j := strings.IndexByte(w, '('); j > 0 {
			w = w[:j]
		}
		words = append(words, w)
	}
	if _, err := strconv.Atoi(rest[len(rest)-1]); err != nil {
		return id, Transcript{}, fmt.Errorf("%w: unreadable pocketsphinx end frame %q", ErrSTT, clipText(rest[len(rest)-1], 20))
	}
	t.Text = strings.Join(words, " ")
	if t.Text == "" {
		t.Confidence, t.MinConfidence, t.HasConfidence = 0, 0, true // nothing recognised
		return id, t, nil
	}
	t.summarize() // no per-word posteriors in hypseg: confidence 1, HasConfidence false
	return id, t, nil
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
