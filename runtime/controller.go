package runtime

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/examtui/examtui/spec/lang"

	"github.com/examtui/examtui/spec"
)

// Controller runs one exam session: the state machine, the decision order, the evidence
// ledger, output validation, commands, admin instructions, beats and the LLM context. Every
// decision happens under one mutex, in the design's decision order; events leave in seq order
// through the Sink.
type Controller struct {
	exam        *spec.Exam
	ex          Examiner
	clock       Clock
	sink        Sink
	log         *slog.Logger
	sessionID   string
	turnTimeout time.Duration
	inputSource InputSource
	failover    failover
	// lang is the exam's language pack: every line the controller says and every word it
	// listens for (language.go); vocab is the words its rules read, built from lang unless
	// WithVocabulary set them (vocabulary.go); listen is what it listens for, built from vocab.
	lang   *lang.Pack
	packs  *lang.Registry // where the exam's language was looked up (nil: the shipped packs)
	vocab  *Vocabulary
	listen *listener

	// turnMu serializes examiner calls (candidate turns and immediate admin runs); mu guards
	// everything else and is released during the call so the examiner can be paused, advanced or
	// ended while it thinks.
	turnMu sync.Mutex
	mu     sync.Mutex

	closed  bool
	resumed bool // restored from an event log and not yet restarted
	// restartPending: the clocks of a restored exam in progress stopped at its log's last
	// event and restart at the first event this process emits, where a replay of the log
	// restarts them too (resume.go).
	restartPending bool
	// cutExit is the stored node_exit of a transition the log ends in the middle of (no
	// node_entered followed it): a resumed Start completes it.
	cutExit *NodeExitPayload
	// openCall is the candidate's turn of a stored log that ends during its examiner call (no
	// observation or not_assessed followed it): a resumed Start records it not assessed.
	openCall *RecoveryPayload
	sinkErr  error
	seq      int64
	state    ExamState
	filters  map[string]*nodeFilters
	// variants draws balanced variants across the store; pins and seed make draws
	// reproducible (variant.go).
	variants VariantCounter
	pins     map[string]string
	seed     uint64
	ctxm     *contextManager
	ledger   Ledger
	inFlight bool

	// nodeState is the state of the node the exam is in (node.go); entering a node replaces it.
	nodeState

	examClock    stopwatch
	startedAt    time.Time
	examWarned   bool
	visited      []string
	turn         int
	segSeq       int
	ttsSpeed     float64
	pausedByExam bool // paused by an examiner control: only an examiner resumes
	queued       []AdminInstruction
	applying     []string // the instructions whose reply is being filtered and said (instruction_echo.go)
	// settling settles the queued instructions of the turn being decided, when non-nil
	// (settle.go); unconfirmed are settles carried by stored lines whose admin_instruction
	// events are still to come.
	settling    *turnSettle
	unconfirmed []AdminInstructionPayload
	beats       []beatState

	speakingUntil    time.Time
	userSpeaking     bool
	lastUserActivity time.Time

	integ integrityState // beats as directions, status, silence, gates (directions.go)
	// presence is who is in the room as the candidate and who paused (presence.go).
	presence presenceState
	// staged is an edited exam waiting for the next node entry (reload.go).
	staged     *spec.Exam
	stagedPath string

	speculation specSlot // examiner work on an interim transcript (speculate.go)
}

// stopwatch measures active (unpaused) time.
type stopwatch struct {
	acc     time.Duration
	since   time.Time
	running bool
}

func (s *stopwatch) start(now time.Time) {
	if !s.running {
		s.since, s.running = now, true
	}
}

func (s *stopwatch) stop(now time.Time) {
	if s.running {
		s.acc += max(0, now.Sub(s.since))
		s.running = false
	}
}

func (s *stopwatch) reset(now time.Time) { s.acc, s.since = 0, now }

func (s *stopwatch) elapsed(now time.Time) time.Duration {
	if s.running {
		return s.acc + max(0, now.Sub(s.since))
	}
	return s.acc
}

// The node's and the exam's clocks stop and start together: at a pause and its resume, at the
// end, and around the downtime a resume skips (resume.go).
func (c *Controller) stopClocks(at time.Time) {
	c.nodeClock.stop(at)
	c.examClock.stop(at)
}

func (c *Controller) startClocks(at time.Time) {
	c.nodeClock.start(at)
	c.examClock.start(at)
}

// startExamClock starts the exam at at: the live start and the replay of a stored one.
func (c *Controller) startExamClock(at time.Time) {
	c.startedAt = at
	c.examClock.reset(at)
	c.examClock.start(at)
}

// beginExam moves a ready exam into progress: Start, or a resumed Start whose log ended
// before it did.
func (c *Controller) beginExam(now time.Time) {
	c.startExamClock(now)
	c.lastUserActivity = now
	c.setStateAt(now, StateInProgress, "started", nil)
}

// NewController validates the exam and builds a controller in the created state (or in the
// state the WithResume log leaves it in).
func NewController(exam *spec.Exam, ex Examiner, opts ...Option) (*Controller, error) {
	if exam == nil {
		return nil, ErrNilExam
	}
	if ex == nil {
		return nil, ErrNilExaminer
	}
	if err := validateExam(exam); err != nil {
		return nil, err
	}
	o := options{clock: SystemClock{}, turnTimeout: DefaultTurnTimeout, inputSource: SourceTyped,
		maxMessages: defaultMaxContextMessages, maxTokens: defaultMaxContextTokens, failoverAfter: DefaultFailoverAfter}
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return nil, err
		}
	}
	if o.log == nil {
		o.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.sessionID == "" {
		o.sessionID = fmt.Sprintf("sess-%s-%d", exam.ID, o.clock.Now().UnixNano())
	}
	if err := checkPins(exam, o.pins); err != nil {
		return nil, err
	}
	pack, err := languagePack(exam, o.packs)
	if err != nil {
		return nil, err
	}
	// The words the rules read: the pack's, unless WithVocabulary set others.
	vocab, listen := vocabularyFor(pack), listenerFor(pack)
	if o.vocab != nil {
		vocab, listen = o.vocab, newListener(o.vocab)
	}
	if !o.seedSet {
		o.seed = seedFor(o.sessionID)
	}
	c := &Controller{
		exam: exam, ex: ex, clock: o.clock, sink: o.sink, log: o.log, sessionID: o.sessionID,
		turnTimeout: o.turnTimeout, inputSource: o.inputSource, state: StateCreated,
		filters: buildFiltersIn(exam, pack, vocab), ctxm: newContextManager(), ttsSpeed: 1,
		variants: o.variants, pins: o.pins, seed: o.seed, lang: pack, packs: o.packs, vocab: vocab, listen: listen,
	}
	c.ctxm.maxMessages, c.ctxm.maxTokens = o.maxMessages, o.maxTokens
	c.failover = failover{fallback: o.fallback, after: o.failoverAfter, hold: o.holdAfter, wait: o.failoverWait}
	c.beats = make([]beatState, len(exam.Beats))
	c.integ.init(exam, o.gateOverrides)
	if o.resumeSet {
		if err := c.restore(o.resume); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func validateExam(exam *spec.Exam) error {
	if len(exam.Nodes) == 0 {
		return fmt.Errorf("%w: no nodes", ErrInvalidExam)
	}
	if exam.Node(exam.EntryNode) == nil {
		return fmt.Errorf("%w: entry node %q does not exist", ErrInvalidExam, exam.EntryNode)
	}
	for _, n := range exam.Nodes {
		if n.Controller.Next != "" && exam.Node(n.Controller.Next) == nil {
			return fmt.Errorf("%w: node %q: next %q does not exist", ErrInvalidExam, n.NodeID, n.Controller.Next)
		}
		for r, to := range n.Controller.Transitions {
			if exam.Node(to) == nil {
				return fmt.Errorf("%w: node %q: transition %s to %q does not exist", ErrInvalidExam, n.NodeID, r, to)
			}
		}
	}
	for _, b := range exam.Beats {
		if b.Scope != "exam" && exam.Node(b.Scope) == nil {
			return fmt.Errorf("%w: beat at %ds: scope %q is neither exam nor a node", ErrInvalidExam, b.AtSec, b.Scope)
		}
	}
	return nil
}

// SessionID returns the session id events carry.
func (c *Controller) SessionID() string { return c.sessionID }

// Exam returns the compiled exam being run.
func (c *Controller) Exam() *spec.Exam {
	c.mu.Lock() // a reload (reload.go) swaps it
	defer c.mu.Unlock()
	return c.exam
}

// ExaminerName returns the examiner's name.
func (c *Controller) ExaminerName() string {
	c.mu.Lock() // the examiner changes on failover
	defer c.mu.Unlock()
	return c.ex.Name()
}

// Start moves the exam created → scaffolding → ready → in_progress and enters the entry node.
// A controller resumed mid-exam re-asks the current question instead.
func (c *Controller) Start(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.usable(); err != nil {
		return err
	}
	if c.state != StateCreated {
		if c.state.Terminal() {
			return fmt.Errorf("%w: %s", ErrExamOver, c.state)
		}
		if !c.resumed {
			return fmt.Errorf("%w: state %s", ErrAlreadyStarted, c.state)
		}
		c.resumed = false
		c.continueResumed()
		if c.restartPending { // nothing to say: the exam goes on from now
			c.restartPending = false
			c.startClocks(c.clock.Now())
		}
		c.flushPresence()
		return c.sinkErr
	}
	c.setState(StateScaffolding, "preparing")
	c.setState(StateReady, "prepared")
	c.beginExam(c.clock.Now())
	c.flushPresence()
	c.enterNode(c.clock.Now(), c.exam.EntryNode, "", "")
	return c.sinkErr
}

// Close stops the controller; later calls fail with ErrClosed. It owns no goroutines.
func (c *Controller) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	return nil
}

// usable reports why the controller cannot take a call, if it cannot. Caller holds mu.
func (c *Controller) usable() error {
	if c.closed {
		return ErrClosed
	}
	return c.sinkErr
}

func (c *Controller) active() error {
	if err := c.usable(); err != nil {
		return err
	}
	switch {
	case c.state == StateCreated || c.node == nil:
		return ErrNotStarted
	case c.state.Terminal():
		return fmt.Errorf("%w: %s", ErrExamOver, c.state)
	}
	return nil
}

// emit publishes one event with the next seq. After a sink failure nothing more is emitted and
// every public call returns the failure: an event that could not be stored is never followed
// by others (seq stays gap-free in the store).
func (c *Controller) emit(p Payload) { c.emitAt(c.clock.Now(), p) }

// emitAt emits p stamped at: the instant a clock was read for it (a node's elapsed time, a
// pause, a start), so a replay that runs the clocks on the stored timestamps (resume.go)
// measures what the live controller did, however long the emit waited for the CPU.
func (c *Controller) emitAt(at time.Time, p Payload) {
	if c.sinkErr != nil {
		return
	}
	if c.restartPending {
		c.restartPending = false
		c.startClocks(at)
	}
	if g, ok := p.(*GuardrailTriggeredPayload); ok {
		if _, known := LookupGuardrail(g.Guardrail); !known {
			undeclaredGuardrail(c.log, g.Guardrail)
		}
	}
	ev, err := NewEvent(c.sessionID, c.seq+1, at, p)
	if err != nil {
		c.sinkErr = err
		return
	}
	if c.sink != nil {
		if err := c.sink.Publish(ev); err != nil {
			c.sinkErr = fmt.Errorf("%w: %s seq %d: %w", ErrSink, ev.Event, ev.Seq, err)
			c.log.Error("event sink failed", "event", ev.Event, "seq", ev.Seq, "err", err)
			return
		}
	}
	c.seq = ev.Seq
}

func (c *Controller) setState(next ExamState, reason string) bool {
	return c.setStateAt(c.clock.Now(), next, reason, nil)
}

// setStateAt is setState at the instant at, recording who caused the change (pause and
// resume).
func (c *Controller) setStateAt(at time.Time, next ExamState, reason string, by *Actor) bool {
	if !c.state.CanTransition(next) {
		c.log.Warn("refused state transition", "from", c.state, "to", next)
		return false
	}
	prev := c.state
	c.state = next
	p := &ExamStatePayload{State: next, Previous: prev, Reason: reason, TotalTimeBudgetSec: c.exam.TotalTimeBudgetSec, By: by}
	if prev == StateCreated {
		p.Nodes = make([]string, len(c.exam.Nodes))
		for i := range c.exam.Nodes {
			p.Nodes[i] = c.exam.Nodes[i].NodeID
		}
	}
	if next == StateInProgress {
		p.DeadlineAt, p.ExamDeadlineAt = c.nodeDeadline(), c.examDeadline()
	}
	c.emitAt(at, p)
	return true
}

// nodeDeadline is the current node's deadline as RFC 3339, or "" while paused or unbudgeted.
// ParseDeadline reads a deadline field of an event (deadlineAt, examDeadlineAt): the zero
// time when it is empty (no budget, or the clock stopped) or not a time.
func ParseDeadline(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

func (c *Controller) nodeDeadline() string {
	if c.node == nil || c.node.Controller.TimeBudgetSec <= 0 || !c.nodeClock.running || c.state != StateInProgress {
		return ""
	}
	now := c.clock.Now()
	left := time.Duration(c.node.Controller.TimeBudgetSec)*time.Second - c.nodeClock.elapsed(now)
	return now.Add(left).UTC().Format(time.RFC3339Nano)
}

// examDeadline is when the exam budget runs out as RFC 3339, or "".
func (c *Controller) examDeadline() string {
	if c.exam.TotalTimeBudgetSec <= 0 || !c.examClock.running {
		return ""
	}
	now := c.clock.Now()
	left := time.Duration(c.exam.TotalTimeBudgetSec)*time.Second - c.examClock.elapsed(now)
	return now.Add(left).UTC().Format(time.RFC3339Nano)
}

// emitIntercepts records each output filter that rewrote or dropped what the examiner said in
// the node nodeID.
func (c *Controller) emitIntercepts(nodeID string, hits []filterHit) {
	for _, h := range hits {
		c.emit(&GuardrailTriggeredPayload{Guardrail: h.Name.String(), NodeID: nodeID, Action: GuardrailOutputIntercepted,
			OriginalText: h.Original, ReplacementText: h.Replacement, Detail: h.Action + ": " + h.Detail,
			FilterAction: h.Action, Reason: h.Reason, Phrase: h.Phrase})
	}
}

// speakFiltered runs the node's output filters on a line, records what they intercepted and
// says what is left, part by part, as source. Every line the candidate hears comes through here
// (speak) or through plan and apply (a turn's reply, validated by the same runFilters).
func (c *Controller) speakFiltered(nodeID, text string, source SpokenSource) (asked bool) {
	return c.sayFiltered(nodeID, text, source, false, true)
}

// sayFiltered filters text, records the interceptions and says what is left. guard marks a line
// the examiner model wrote: it gets the whole pipeline and the instruction_echo guard
// (outputFilters); the controller's own lines (speak) get runOwnFilters.
// It reports whether what was said asks the candidate a question.
func (c *Controller) sayFiltered(nodeID, text string, source SpokenSource, intercepted, guard bool) (asked bool) {
	nf := c.filtersFor(nodeID)
	if nf == nil || strings.TrimSpace(text) == "" {
		return false
	}
	filter := nf.runOwnFilters
	if guard {
		filter = func(text string) (string, []string, []filterHit) { return c.outputFilters(nf, text) }
	}
	out, parts, hits := filter(text)
	c.emitIntercepts(nodeID, hits)
	for i, p := range parts {
		c.speakPart(p, source, intercepted || len(hits) > 0, i, false)
	}
	return hasQuestion(out)
}

// speak says a line of the controller's own (a node's intro and prompt, a canned line, a
// check-in, the question again): it passes the same filters as the examiner's replies, since
// an author's text or a question repeated in a new frame can carry what must not be spoken.
func (c *Controller) speak(text string, source SpokenSource, intercepted bool) {
	if c.node == nil {
		return
	}
	c.sayFiltered(c.node.NodeID, text, source, intercepted, false)
}

func (c *Controller) speakPart(text string, source SpokenSource, intercepted bool, part int, streamed bool) {
	text = strings.TrimSpace(text)
	if text == "" || c.node == nil {
		return
	}
	now := c.clock.Now()
	sp := &SpokenPayload{NodeID: c.node.NodeID, Text: text, Source: source, Intercepted: intercepted,
		TTSSpeed: c.ttsSpeed, Part: part, Streamed: streamed, Settles: c.settlesWith(text)}
	c.emit(sp)
	c.heard(sp)
	c.noteSaying(text, part)
	c.applySettles(sp.Settles)
	c.segSeq++
	dur := speechDuration(text, c.ttsSpeed)
	c.emit(&TranscriptSegmentPayload{SegmentID: fmt.Sprintf("seg-%04d", c.segSeq), NodeID: c.node.NodeID,
		Speaker: SpeakerExaminer, Text: text, Confidence: 1, TimestampMs: now.UnixMilli(), DurationMs: dur.Milliseconds(),
		IsFinal: true})
	start := now
	if c.speakingUntil.After(start) {
		start = c.speakingUntil
	}
	c.speakingUntil = start.Add(dur)
	c.noteQuestion(text, source)
}

// noteQuestion keeps what the examiner just said as the question to come back to: a node's
// prompt whole, else the last question of the examiner's own reply. Live speech and the
// replay of a stored spoken event both use it.
func (c *Controller) noteQuestion(text string, source SpokenSource) {
	switch q := c.listen.nodeQuestionIn(text); {
	case source == SpokenPrompt:
		c.lastQuestion = text
	case source == SpokenExaminer && q != "":
		c.lastQuestion = q
	}
}

// speechDuration estimates how long TTS takes to say text (about 150 words a minute at speed 1),
// for the post-speak gate; the audio layer reports real playback through SpeechDone.
func speechDuration(text string, speed float64) time.Duration {
	if speed <= 0 {
		speed = 1
	}
	words := len(strings.Fields(text))
	return time.Duration(float64(words) / 2.5 / speed * float64(time.Second))
}

// nodeQuestionIn returns the last question sentence of text that asks something of the exam,
// or "": a procedural question, one that is itself a candidate command ("Would you like me to
// repeat the question?", "Do you need a break?"), is never the question to come back to.
func (l *listener) nodeQuestionIn(text string) string {
	ss := SplitSentences(text)
	for i := len(ss) - 1; i >= 0; i-- {
		if !strings.HasSuffix(ss[i], "?") {
			continue
		}
		if _, procedural := l.classify(ss[i]); !procedural {
			return ss[i]
		}
	}
	return ""
}

// lastQuestionIn returns the last question sentence of text, or "".
func lastQuestionIn(text string) string {
	ss := SplitSentences(text)
	for i := len(ss) - 1; i >= 0; i-- {
		if strings.HasSuffix(ss[i], "?") {
			return ss[i]
		}
	}
	return ""
}

// enterNode makes id the current node at at, emits node_entered and speaks its intro and
// prompt. An end node completes the exam.
func (c *Controller) enterNode(at time.Time, id, from, reason string) {
	c.applyStaged(id)
	base := c.exam.Node(id)
	variant, draw := c.drawVariant(base)
	node, _ := base.WithVariant(variant) // drawn from base's own variants
	c.resetNode(node, at)
	targets := node.Controller.EvidenceSignals
	c.emitAt(at, &NodeEnteredPayload{
		Variant: variant, VariantDraw: draw,
		NodeID: id, Kind: node.Kind.String(), Persona: node.Controller.Persona, Scenario: node.Controller.Scenario,
		EvidenceTargets: targets, MaxFollowUps: node.Controller.MaxFollowUps, TimeBudgetSec: node.Controller.TimeBudgetSec,
		Progress: Progress{CurrentNodeIndex: node.Index + 1, TotalNodes: len(c.exam.Nodes)},
		From:     from, Reason: reason, DeadlineAt: c.nodeDeadline(),
		RequiredEvidenceCount: node.Controller.RequiredEvidenceCount, MaxOffTopicRedirects: node.Controller.MaxOffTopicRedirects,
		MaxClarifications: c.exam.Policies.MaxClarifications,
	})
	if node.Controller.ScenarioIntro != "" {
		c.speak(node.Controller.ScenarioIntro, SpokenIntro, false)
	}
	if node.Controller.ConversationPrompt != "" {
		c.speak(node.Controller.ConversationPrompt, SpokenPrompt, false)
	}
	if node.Kind == spec.KindEnd {
		c.completeAtEnd()
		return
	}
	c.fireOpeningBeats()
}

// completeAtEnd completes the exam in the end node it is in: on entry, or when a resumed log
// stops there.
func (c *Controller) completeAtEnd() {
	c.exitNode(ExitEndNode, "")
	c.finish(StateCompleted, "end node reached")
}

// exitNode emits node_exit for the current node, stamped at the instant its elapsed time was
// read, and returns that instant (the next node's entry shares it: resume.go reads a gap
// between the two as a restart).
func (c *Controller) exitNode(reason ExitReason, next string) time.Time {
	now := c.clock.Now()
	if c.node == nil {
		return now
	}
	c.emitAt(now, &NodeExitPayload{NodeID: c.node.NodeID, Reason: reason, Next: next,
		ElapsedMs: c.nodeClock.elapsed(now).Milliseconds(), FollowUps: c.followUps,
		EvidenceCount: len(c.ledger.Covered(c.node.NodeID, c.node.Controller.EvidenceSignals))})
	return now
}

// transition leaves the current node for the successor the spec names for reason.
func (c *Controller) transition(reason spec.Reason) string {
	from := c.node
	next, ok := from.Successor(reason)
	if !ok {
		c.exitNode(TransitionExit(reason), "")
		c.finish(StateCompleted, "no successor after "+from.NodeID)
		return ""
	}
	at := c.exitNode(TransitionExit(reason), next)
	c.enterNode(at, next, from.NodeID, reason.String())
	return next
}

// finish ends the exam in a terminal state and emits exam_completed.
func (c *Controller) finish(state ExamState, reason string) {
	if c.state.Terminal() {
		return
	}
	now := c.clock.Now()
	c.stopClocks(now)
	if !c.setStateAt(now, state, reason, nil) {
		return
	}
	coverage := map[string]float64{}
	for _, id := range c.visited {
		if n := c.exam.Node(id); n != nil && len(n.Controller.EvidenceSignals) > 0 {
			coverage[id] = c.ledger.Coverage(id, n.Controller.EvidenceSignals)
		}
	}
	c.emitAt(now, &ExamCompletedPayload{State: state, Reason: reason, DurationMs: now.Sub(c.startedAt).Milliseconds(),
		NodesVisited: append([]string(nil), c.visited...), Evidence: c.ledger.CountByType(), Coverage: coverage})
	c.queued = nil
}

func (c *Controller) pauseExam(reason string, by Actor) bool {
	c.pausedByExam = by.Kind == ActorExaminer
	c.presence.pausedBy = by
	now := c.clock.Now()
	c.stopClocks(now)
	return c.setStateAt(now, StatePaused, reason, &by)
}

func (c *Controller) resumeExam(reason string, by Actor) bool {
	if c.state != StatePaused {
		return false
	}
	// Timers first, so the emitted deadlines are the moved ones.
	now := c.clock.Now()
	c.startClocks(now)
	c.presence.pausedBy = Actor{}
	return c.setStateAt(now, StateInProgress, reason, &by)
}
