package audio

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
)

// Sphinx is the offline recogniser: pocketsphinx (Debian's pocketsphinx and pocketsphinx-en-us)
// restricted to a JSGF grammar of the phrases it may hear. Free dictation with pocketsphinx is
// far too inaccurate to use, but on a small fixed set of sentences (a rehearsal script's turns)
// it is exact, which is what `examtui test --audio` needs to run the real audio path offline.
// Anything said outside the grammar is forced onto the nearest phrase: do not use it for live
// candidates.
type Sphinx struct {
	bin      string
	dictPath string
	dir      string // temporary directory holding the grammar
	grammar  string
	dict     string // the phrases' words only: cmudict entries plus generated ones
	phrases  []string
	// Generated lists words not in the dictionary whose pronunciation came from espeak-ng.
	Generated []string
	closeMu   sync.Mutex
	closed    bool
	log       *slog.Logger
}

// SphinxOption configures NewSphinx.
type SphinxOption func(*Sphinx) error

// WithSphinxBinary sets the pocketsphinx_continuous executable.
func WithSphinxBinary(path string) SphinxOption {
	return func(s *Sphinx) error {
		if path == "" {
			return fmt.Errorf("%w: empty pocketsphinx path", ErrInvalidConfig)
		}
		s.bin = path
		return nil
	}
}

// WithSphinxLogger sets the logger of the recogniser's streams (restarts, failures).
func WithSphinxLogger(l *slog.Logger) SphinxOption {
	return func(s *Sphinx) error { return setLogger(&s.log, l) }
}

// WithSphinxDictionary sets the pronunciation dictionary used to check the phrases' words.
func WithSphinxDictionary(path string) SphinxOption {
	return func(s *Sphinx) error { s.dictPath = path; return nil }
}

const defaultSphinxDict = "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict"

// NewSphinx builds the grammar from phrases. Words missing from the pocketsphinx dictionary
// (names) get a pronunciation from espeak-ng's phonemes; the error names any that cannot.
func NewSphinx(phrases []string, opts ...SphinxOption) (*Sphinx, error) {
	s := &Sphinx{bin: "pocketsphinx_continuous", dictPath: defaultSphinxDict}
	for _, o := range opts {
		if err := o(s); err != nil {
			return nil, err
		}
	}
	path, err := exec.LookPath(s.bin)
	if err != nil {
		return nil, fmt.Errorf("%w: pocketsphinx_continuous not found (install pocketsphinx and pocketsphinx-en-us): %w", ErrSTT, err)
	}
	s.bin = path
	seen := map[string]bool{}
	for _, p := range phrases {
		n := NormalizeForGrammar(p)
		if n != "" && !seen[n] {
			seen[n] = true
			s.phrases = append(s.phrases, n)
		}
	}
	if len(s.phrases) == 0 {
		return nil, fmt.Errorf("%w: no phrases for the pocketsphinx grammar", ErrInvalidConfig)
	}
	s.dir, err = os.MkdirTemp("", "examtui-sphinx-")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSTT, err)
	}
	if err := s.writeDictionary(); err != nil {
		os.RemoveAll(s.dir)
		return nil, err
	}
	s.grammar = filepath.Join(s.dir, "phrases.gram")
	body := "#JSGF V1.0;\ngrammar examtui;\npublic <utterance> = ( " + strings.Join(s.phrases, " | ") + " );\n"
	if err := os.WriteFile(s.grammar, []byte(body), 0o600); err != nil {
		os.RemoveAll(s.dir)
		return nil, fmt.Errorf("%w: write grammar: %w", ErrSTT, err)
	}
	return s, nil
}

// NormalizeForGrammar lower-cases a phrase and keeps only letters, digits and apostrophes
// inside words, as the dictionary spells them.
func NormalizeForGrammar(p string) string {
	f := strings.FieldsFunc(strings.ToLower(p), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
	for i, w := range f {
		f[i] = strings.Trim(w, "'")
	}
	return strings.Join(strings.Fields(strings.Join(f, " ")), " ")
}

// writeDictionary writes the phrases' words with their cmudict pronunciations (every variant)
// and, for words cmudict lacks, one derived from espeak-ng's phonemes.
func (s *Sphinx) writeDictionary() error {
	f, err := os.Open(s.dictPath)
	if err != nil {
		return fmt.Errorf("%w: pocketsphinx dictionary: %w", ErrSTT, err)
	}
	defer f.Close()
	want := map[string]bool{}
	for _, p := range s.phrases {
		for _, w := range strings.Fields(p) {
			want[w] = false
		}
	}
	var dict strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		w, _, _ := strings.Cut(line, " ")
		base, _, _ := strings.Cut(w, "(") // "read(2)" is a variant of "read"
		if _, ok := want[base]; ok {
			dict.WriteString(line + "\n")
			want[base] = true
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%w: reading dictionary: %w", ErrSTT, err)
	}
	var missing []string
	for w, found := range want {
		if found {
			continue
		}
		ph, err := pronounce(context.Background(), w)
		if err != nil {
			missing = append(missing, w)
			continue
		}
		dict.WriteString(w + " " + ph + "\n")
		s.Generated = append(s.Generated, w)
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: words pocketsphinx cannot pronounce: %s", ErrInvalidConfig, strings.Join(missing, ", "))
	}
	s.dict = filepath.Join(s.dir, "phrases.dict")
	if err := os.WriteFile(s.dict, []byte(dict.String()), 0o600); err != nil {
		return fmt.Errorf("%w: write dictionary: %w", ErrSTT, err)
	}
	return nil
}

// Transcribe recognises an utterance against the grammar. Word posteriors become segment
// confidences (one segment per word).
func (s *Sphinx) Transcribe(ctx context.Context, u Utterance) (Transcript, error) {
	if len(u.Samples) == 0 {
		return Transcript{}, fmt.Errorf("%w: %w: empty utterance", ErrSTT, ErrNoSpeech)
	}
	s.closeMu.Lock()
	closed := s.closed
	s.closeMu.Unlock()
	if closed {
		return Transcript{}, fmt.Errorf("%w: %w", ErrSTT, ErrClosed)
	}
	f, err := os.CreateTemp(s.dir, "utt-*.wav")
	if err != nil {
		return Transcript{}, fmt.Errorf("%w: %w", ErrSTT, err)
	}
	defer os.Remove(f.Name())
	werr := WriteWAV(f, u.Samples, SampleRate)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return Transcript{}, fmt.Errorf("%w: %w", ErrSTT, werr)
	}
	// Wider beams than the defaults: with the default ones the search sometimes prunes the only
	// path through a long phrase ("Final result does not match the grammar"); a small grammar
	// keeps the wider search cheap.
	cmd := exec.CommandContext(ctx, s.bin, "-infile", f.Name(), "-jsgf", s.grammar, "-dict", s.dict,
		"-beam", "1e-80", "-pbeam", "1e-80", "-wbeam", "1e-60", "-logfn", os.DevNull, "-time", "yes")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return Transcript{}, fmt.Errorf("%w: pocketsphinx: %w: %s", ErrSTT, err, strings.TrimSpace(stderr.String()))
	}
	t := parseSphinx(out.String())
	t.Duration = time.Duration(len(u.Samples)) * time.Second / SampleRate
	return t, nil
}

// parseSphinx reads pocketsphinx_continuous -time yes output: hypothesis lines, each followed
// by "word start end posterior" lines.
func parseSphinx(out string) Transcript {
	t := Transcript{Language: "en", IsFinal: true}
	var hyps []string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) == 4 {
			start, e1 := strconv.ParseFloat(f[1], 64)
			end, e2 := strconv.ParseFloat(f[2], 64)
			prob, e3 := strconv.ParseFloat(f[3], 64)
			if e1 == nil && e2 == nil && e3 == nil {
				if w := f[0]; !strings.HasPrefix(w, "<") && !strings.HasPrefix(w, "[") {
					t.Segments = append(t.Segments, Segment{Text: w, StartMs: int64(start * 1000), EndMs: int64(end * 1000),
						Confidence: min(max(prob, 0), 1)})
				}
				continue
			}
		}
		hyps = append(hyps, strings.Join(f, " "))
	}
	t.Text = strings.Join(hyps, " ")
	if t.Text == "" {
		t.Confidence, t.MinConfidence, t.HasConfidence = 0, 0, true // nothing recognised
		return t
	}
	t.summarize()
	return t
}

// Close removes the grammar.
func (s *Sphinx) Close() error {
	s.closeMu.Lock()
	defer s.closeMu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	return os.RemoveAll(s.dir)
}
