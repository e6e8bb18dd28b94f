package markconsole

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/examtui/examtui/marking/panel"
	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/tui"
)

// Timeouts of the backend's calls. The panel's members have their own (panel.WithTimeout).
const (
	loadTimeout  = 30 * time.Second
	saveTimeout  = 10 * time.Second
	panelTimeout = 10 * time.Minute
	// playLead starts playback a little before the turn, so its first word is not clipped;
	// playLength bounds one playback.
	playLead   = time.Second
	playLength = 30 * time.Second
)

// Messages from the backend's calls.
type (
	loadedMsg struct {
		sheet *Sheet
		err   error
	}
	nextMsg struct {
		id  string
		err error
	}
	savedMsg struct {
		criterion string
		entry     Entry
		outcome   string
		err       error
	}
	panelMsg struct {
		res *panel.Result
		err error
	}
	playedMsg struct{ err error }
)

// Model is the marking console's root model.
type Model struct {
	opts    options
	backend Backend
	keys    KeyMap
	help    help.Model
	styles  tui.Styles
	input   textinput.Model

	width, height int

	sheet    *Sheet
	wantID   string            // the session asked for (one-session mode)
	sel      int               // the selected criterion
	evidence int               // the selected evidence of the selected criterion (-1: none)
	levels   map[string]string // the level chosen per criterion, saved or not
	editing  bool
	showHelp bool
	busy     string // what the backend is doing, for the status line
	notice   string
	failed   bool // the notice is an error
	done     bool // the queue is finished

	criteria   *criteriaPane
	detail     *detailPane
	transcript *transcriptPane
}

// New builds the console for one session (sessionID), or for the backend's queue with
// WithQueue (sessionID empty).
func New(b Backend, sessionID string, opts ...Option) (*Model, error) {
	if err := checkBackend(b); err != nil {
		return nil, err
	}
	o := defaultOptions()
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return nil, err
		}
	}
	if sessionID == "" && !o.queue {
		return nil, fmt.Errorf("%w: no session and no queue", ErrInvalidOption)
	}
	m := &Model{opts: o, backend: b, keys: DefaultKeyMap(), help: help.New(), wantID: sessionID, evidence: -1}
	m.input = textinput.New()
	m.input.Prompt = "justification> "
	m.input.CharLimit = 2000
	m.setStyles()
	return m, nil
}

func (m *Model) setStyles() {
	m.styles = tui.NewStyles(tui.DefaultPalette(), m.opts.dark, m.opts.noColor)
	m.help.Styles = m.styles.Help
	m.input.SetStyles(m.styles.Input)
	m.criteria = &criteriaPane{st: &m.styles}
	m.detail = &detailPane{st: &m.styles}
	m.transcript = &transcriptPane{st: &m.styles}
	m.layout()
}

// Init loads the session, or the queue's first.
func (m *Model) Init() tea.Cmd {
	if m.wantID != "" {
		return m.load(m.wantID)
	}
	return m.next("")
}

// SetSheet shows a sheet directly (tests, benchmarks): what a load brings.
func (m *Model) SetSheet(s *Sheet) { m.show(s) }

// Sheet is the session shown (nil while loading).
func (m *Model) Sheet() *Sheet { return m.sheet }

func (m *Model) load(id string) tea.Cmd {
	m.busy = "loading " + id
	b := m.backend
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), loadTimeout)
		defer cancel()
		s, err := b.Load(ctx, id)
		return loadedMsg{s, err}
	}
}

func (m *Model) next(after string) tea.Cmd {
	m.busy = "finding the next session"
	b := m.backend
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), loadTimeout)
		defer cancel()
		id, err := b.Next(ctx, after)
		return nextMsg{id, err}
	}
}

func (m *Model) show(s *Sheet) {
	m.sheet, m.sel, m.evidence, m.busy, m.done = s, 0, -1, "", false
	m.levels = map[string]string{}
	for c, e := range s.Marks {
		m.levels[c] = e.Level
	}
	m.transcript.setLines(s)
	m.selectCriterion(0)
}

// Update routes messages; all I/O happens in the commands it returns.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.help.SetWidth(msg.Width)
		m.layout()
	case tea.BackgroundColorMsg:
		m.opts.dark = msg.IsDark()
		m.setStyles()
	case loadedMsg:
		m.busy = ""
		if msg.err != nil {
			m.say(msg.err)
			return m, nil
		}
		m.show(msg.sheet)
	case nextMsg:
		m.busy = ""
		switch {
		case msg.err != nil:
			m.say(msg.err)
		case msg.id == "":
			m.done, m.sheet = true, nil
			m.say(nil, "the queue is done: no session left to mark")
		default:
			return m, m.load(msg.id)
		}
	case savedMsg:
		m.busy = ""
		if msg.err != nil {
			m.say(msg.err)
			return m, nil
		}
		if m.sheet.Marks == nil {
			m.sheet.Marks = map[string]Entry{}
		}
		m.sheet.Marks[msg.criterion] = msg.entry
		if m.sheet.Outcomes == nil {
			m.sheet.Outcomes = map[string]string{}
		}
		m.sheet.Outcomes[msg.criterion] = msg.outcome
		m.say(nil, fmt.Sprintf("saved %s: %s", msg.criterion, msg.entry.Level))
		if m.sel < len(m.sheet.Marking.Criteria)-1 {
			m.selectCriterion(m.sel + 1)
		}
	case panelMsg:
		m.busy = ""
		if msg.err != nil && msg.res == nil {
			m.say(msg.err)
			return m, nil
		}
		m.sheet.Panel = msg.res
		m.say(nil, "the model panel has marked")
	case playedMsg:
		m.busy = ""
		if msg.err != nil {
			m.say(msg.err)
		}
	case tea.KeyPressMsg:
		return m, m.key(msg)
	}
	return m, nil
}

// say sets the footer's notice: an error, or else the text.
func (m *Model) say(err error, text ...string) {
	if err != nil {
		m.notice, m.failed = err.Error(), true
		return
	}
	m.notice, m.failed = strings.Join(text, " "), false
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	if m.showHelp {
		m.showHelp = false
		return nil
	}
	if m.editing {
		return m.editKey(msg)
	}
	k := m.keys
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help):
		m.showHelp = true
		return nil
	case key.Matches(msg, k.Next) && m.opts.queue:
		id := ""
		if m.sheet != nil {
			id = m.sheet.SessionID
		}
		return m.next(id)
	}
	if m.sheet == nil || m.sheet.Marking == nil || len(m.sheet.Marking.Criteria) == 0 {
		return nil
	}
	m.notice = ""
	switch {
	case key.Matches(msg, k.Up):
		m.selectCriterion(m.sel - 1)
	case key.Matches(msg, k.Down):
		m.selectCriterion(m.sel + 1)
	case key.Matches(msg, k.Lower):
		m.stepLevel(-1)
	case key.Matches(msg, k.Higher):
		m.stepLevel(1)
	case key.Matches(msg, k.Level):
		m.setLevel(int(msg.String()[0] - '0'))
	case key.Matches(msg, k.Evidence):
		m.selectEvidence(1)
	case key.Matches(msg, k.PrevEvidence):
		m.selectEvidence(-1)
	case key.Matches(msg, k.ScrollUp):
		m.transcript.scrollBy(-max(m.transcript.height-1, 1))
	case key.Matches(msg, k.ScrollDown):
		m.transcript.scrollBy(max(m.transcript.height-1, 1))
	case key.Matches(msg, k.Play):
		return m.play()
	case key.Matches(msg, k.Panel):
		return m.runPanel()
	case key.Matches(msg, k.Justify):
		if m.sheet.Locked {
			m.say(errors.New("the marks of this session are locked"))
			return nil
		}
		if m.levels[m.current().ID] == "" {
			m.say(errors.New("choose a level first (←/→ or a number)"))
			return nil
		}
		m.editing = true
		m.input.SetValue(m.sheet.Marks[m.current().ID].Justification)
		m.input.CursorEnd()
		m.layout()
		return m.input.Focus()
	}
	return nil
}

func (m *Model) editKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Cancel):
		m.editing = false
		m.input.Blur()
		m.layout()
		return nil
	case key.Matches(msg, m.keys.Save):
		text := strings.TrimSpace(m.input.Value())
		if text == "" {
			m.say(ErrNoJustification)
			return nil
		}
		m.editing = false
		m.input.Blur()
		m.layout()
		c := m.current().ID
		e := Entry{Level: m.levels[c], Justification: text}
		m.busy = "saving"
		b, id := m.backend, m.sheet.SessionID
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(context.Background(), saveTimeout)
			defer cancel()
			out, err := b.Save(ctx, id, c, e)
			return savedMsg{c, e, out, err}
		}
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return cmd
}

func (m *Model) current() *spec.CompiledCriterion { return &m.sheet.Marking.Criteria[m.sel] }

func (m *Model) selectCriterion(i int) {
	if m.sheet == nil || m.sheet.Marking == nil || len(m.sheet.Marking.Criteria) == 0 {
		return
	}
	m.sel = min(max(i, 0), len(m.sheet.Marking.Criteria)-1)
	m.evidence = -1
	m.selectEvidence(1) // the first piece of evidence, and its turn in the transcript
}

// levelNames are the criterion's levels with none below them: what a marker may give.
func levelNames(c *spec.CompiledCriterion) []string {
	out := []string{spec.NoLevel}
	for _, l := range c.Levels {
		out = append(out, l.Name)
	}
	return out
}

func (m *Model) stepLevel(d int) {
	c := m.current()
	names := levelNames(c)
	i := slices.Index(names, m.levels[c.ID])
	if i < 0 { // nothing chosen yet: start from the rule's proposal
		i = max(slices.Index(names, m.proposedLevel(c.ID)), 0)
		d = 0
	}
	m.setLevel(i + d)
}

func (m *Model) setLevel(i int) {
	if m.sheet.Locked {
		m.say(errors.New("the marks of this session are locked"))
		return
	}
	names := levelNames(m.current())
	if i < 0 || i >= len(names) {
		return
	}
	m.levels[m.current().ID] = names[i]
}

func (m *Model) proposedLevel(criterion string) string {
	if p := m.proposal(criterion); p != nil {
		return p.Level
	}
	return ""
}

// selectEvidence moves through the selected criterion's evidence and misconceptions and shows
// the turn it came from.
func (m *Model) selectEvidence(d int) {
	refs := m.refs()
	if len(refs) == 0 {
		m.evidence = -1
		return
	}
	m.evidence = ((m.evidence+d)%len(refs) + len(refs)) % len(refs)
	m.transcript.focus(refs[m.evidence].segment)
}

func (m *Model) play() tea.Cmd {
	refs := m.refs()
	switch {
	case m.sheet.Recording == "":
		m.say(errors.New("this session has no recording (it was typed, or run without --record)"))
		return nil
	case m.evidence < 0 || m.evidence >= len(refs):
		m.say(errors.New("no evidence selected: tab to one"))
		return nil
	}
	at, ok := m.transcript.at(refs[m.evidence].segment)
	if !ok {
		m.say(errors.New("the evidence names no turn of the transcript"))
		return nil
	}
	offset := max(at.Sub(m.sheet.RecordingStart)-playLead, 0)
	m.busy = fmt.Sprintf("playing from %s", clock(offset))
	b, path := m.backend, m.sheet.Recording
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), playLength+10*time.Second)
		defer cancel()
		return playedMsg{b.Play(ctx, path, offset, playLength)}
	}
}

func (m *Model) runPanel() tea.Cmd {
	m.busy = "the model panel is marking"
	cp := *m.sheet // the command reads its own copy while Update goes on
	b, s := m.backend, &cp
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), panelTimeout)
		defer cancel()
		res, err := b.Panel(ctx, s)
		return panelMsg{res, err}
	}
}

func clock(d time.Duration) string {
	s := int(d / time.Second)
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
