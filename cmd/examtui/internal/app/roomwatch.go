package app

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	lkproto "github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/examtui/examtui/monitor"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/livekit"
	"github.com/examtui/examtui/tui"
)

// roomScanInterval is how often the LiveKit server is asked which rooms exist.
const roomScanInterval = 2 * time.Second

// RoomMsg is what the room watcher reports: events of an exam in a room, that a session runs
// in a room, or (Scanned) the rooms whose dispatched exam has not started.
type RoomMsg struct {
	Update  monitor.Update
	Session string // with Room: this session runs in Room
	Room    monitor.RoomInfo
	// Scanned: Waiting is the whole list of rooms with an examtui dispatch and no exam bot as
	// of this scan (empty: none), for monitor.Board.SetWaiting.
	Scanned bool
	Waiting []monitor.Waiting
}

// RoomWatcher finds the LiveKit rooms that run exams (an exam bot is in them) and follows each
// as an examiner, the way examtui watch does: its events (replayed from the start on joining)
// feed the board, and controls go back over the room's examiner-commands data topic. Exams
// whose bot writes to another store than the monitor's are seen this way too.
type RoomWatcher struct {
	rooms      *lksdk.RoomServiceClient
	dispatches *lksdk.AgentDispatchClient
	agentName  string
	dial       func(ctx context.Context, room string) (*livekit.Client, error)
	log        *slog.Logger

	mu      sync.Mutex
	clients map[string]*roomFollow     // room → its examiner client
	byID    map[string]*livekit.Client // session → examiner client
	// seen keeps each room session's events, so its console can open with its history when
	// the session is not in the monitor's store.
	seen map[string][]runtime.Event
	wg   sync.WaitGroup
}

// roomFollow is one followed room: its examiner client and the forwarder's cancel.
type roomFollow struct {
	c      *livekit.Client
	cancel context.CancelFunc
}

func (f *roomFollow) stop() {
	f.cancel()
	_ = f.c.Close()
}

// RoomWatchConfig says how a RoomWatcher lists rooms and joins them.
type RoomWatchConfig struct {
	Rooms *lksdk.RoomServiceClient // the server's room service (ListRooms, ListParticipants)
	// Dispatches and AgentName find the rooms an exam was dispatched to (the workers' agent
	// name, as examtui dispatch addresses them) that no bot has joined; without them the
	// watcher sees running exams only.
	Dispatches *lksdk.AgentDispatchClient
	AgentName  string
	// Dial joins a room as an examiner (examtui watch's dial).
	Dial func(ctx context.Context, room string) (*livekit.Client, error)
	Log  *slog.Logger
}

// NewRoomWatcher returns a watcher; Run starts it.
func NewRoomWatcher(c RoomWatchConfig) (*RoomWatcher, error) {
	if c.Rooms == nil || c.Dial == nil {
		return nil, errors.New("room watcher: a room service and a dial function are required")
	}
	if c.Dispatches != nil && c.AgentName == "" {
		return nil, errors.New("room watcher: a dispatch client needs the workers' agent name")
	}
	log := c.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &RoomWatcher{rooms: c.Rooms, dispatches: c.Dispatches, agentName: c.AgentName, dial: c.Dial, log: log,
		clients: map[string]*roomFollow{}, byID: map[string]*livekit.Client{}, seen: map[string][]runtime.Event{}}, nil
}

// Run scans until ctx ends, sending what it learns on out; it closes every client on return.
func (w *RoomWatcher) Run(ctx context.Context, out chan<- RoomMsg) {
	defer w.closeAll()
	scan := func() bool {
		if err := w.scan(ctx, out); err != nil && ctx.Err() == nil {
			w.log.Warn("monitor: list LiveKit rooms", "err", err)
		}
		return true
	}
	scan()
	Every(ctx, roomScanInterval, scan)
}

func (w *RoomWatcher) scan(ctx context.Context, out chan<- RoomMsg) error {
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	res, err := w.rooms.ListRooms(cctx, &lkproto.ListRoomsRequest{})
	if err != nil {
		return err
	}
	live := map[string]bool{}
	var waiting []monitor.Waiting
	for _, r := range res.GetRooms() {
		name := r.GetName()
		live[name] = true
		w.mu.Lock()
		_, known := w.clients[name]
		w.mu.Unlock()
		if known {
			continue
		}
		bot, candidate, err := w.hasBot(cctx, name)
		if err != nil {
			w.log.Warn("monitor: list participants", "room", name, "err", err)
			continue
		}
		if !bot {
			if wt, ok := w.waitingIn(cctx, r, candidate); ok {
				waiting = append(waiting, wt)
			}
			continue
		}
		if err := w.follow(ctx, monitor.RoomInfo{Room: name, Candidate: candidate}, out); err != nil {
			w.log.Warn("monitor: join exam room", "room", name, "err", err)
		}
	}
	// Rooms that are gone: stop following them.
	w.mu.Lock()
	for name, f := range w.clients {
		if !live[name] {
			f.stop()
			delete(w.clients, name)
			for id, c := range w.byID {
				if c == f.c {
					delete(w.byID, id)
				}
			}
		}
	}
	w.mu.Unlock()
	if w.dispatches == nil {
		return nil
	}
	select {
	case out <- RoomMsg{Scanned: true, Waiting: waiting}:
	case <-ctx.Done():
	}
	return nil
}

// waitingIn reports whether room r, which has no exam bot, holds an exam dispatch of the
// workers' agent that has not run: not withdrawn, and none of its jobs ended (a room whose
// exam is over and whose bot has left keeps its dispatch with the job's end on it). Since is
// the oldest such dispatch's creation, or the room's.
func (w *RoomWatcher) waitingIn(ctx context.Context, r *lkproto.Room, candidate string) (monitor.Waiting, bool) {
	if w.dispatches == nil {
		return monitor.Waiting{}, false
	}
	res, err := w.dispatches.ListDispatch(ctx, &lkproto.ListAgentDispatchRequest{Room: r.GetName()})
	if err != nil {
		w.log.Warn("monitor: list dispatches", "room", r.GetName(), "err", err)
		return monitor.Waiting{}, false
	}
	var found *lkproto.AgentDispatch
	// A dispatch whose job the worker refused (the note on the room names the job) is shown
	// with the worker's reason: nobody will start that room's exam.
	rejectedJob, reason, noted := livekit.DecodeRejection(r.GetMetadata())
	for _, d := range res.GetAgentDispatches() {
		if d.GetAgentName() != w.agentName || d.GetState().GetDeletedAt() != 0 {
			continue
		}
		if noted && hasJob(d, rejectedJob) {
			return monitor.Waiting{Room: r.GetName(), Candidate: candidate, DispatchID: d.GetId(),
				Since: time.Unix(0, d.GetState().GetCreatedAt()), Rejected: reason}, true
		}
		if jobEnded(d) {
			continue
		}
		if found == nil || d.GetState().GetCreatedAt() < found.GetState().GetCreatedAt() {
			found = d
		}
	}
	if found == nil {
		return monitor.Waiting{}, false
	}
	since := time.Unix(0, found.GetState().GetCreatedAt())
	if found.GetState().GetCreatedAt() == 0 {
		since = time.UnixMilli(r.GetCreationTimeMs())
		if r.GetCreationTimeMs() == 0 {
			since = time.Unix(r.GetCreationTime(), 0)
		}
	}
	return monitor.Waiting{Room: r.GetName(), Candidate: candidate, DispatchID: found.GetId(), Since: since}, true
}

// hasJob reports whether dispatch d has the job id.
func hasJob(d *lkproto.AgentDispatch, id string) bool {
	for _, j := range d.GetState().GetJobs() {
		if j.GetId() == id {
			return true
		}
	}
	return false
}

// jobEnded reports whether a job of dispatch d finished (with success or failure).
func jobEnded(d *lkproto.AgentDispatch) bool {
	for _, j := range d.GetState().GetJobs() {
		switch j.GetState().GetStatus() {
		case lkproto.JobStatus_JS_SUCCESS, lkproto.JobStatus_JS_FAILED:
			return true
		}
	}
	return false
}

// hasBot reports whether an exam bot is in room, and the candidate's identity if one is.
func (w *RoomWatcher) hasBot(ctx context.Context, room string) (bot bool, candidate string, err error) {
	res, err := w.rooms.ListParticipants(ctx, &lkproto.ListParticipantsRequest{Room: room})
	if err != nil {
		return false, "", err
	}
	for _, p := range res.GetParticipants() {
		switch p.GetAttributes()[livekit.RoleAttribute] {
		case livekit.RoleBot.String():
			bot = true
		case livekit.RoleCandidate.String():
			candidate = p.GetIdentity()
		}
	}
	return bot, candidate, nil
}

// follow joins room as an examiner and forwards its events, in seq order, until ctx ends or
// the client is closed.
func (w *RoomWatcher) follow(ctx context.Context, info monitor.RoomInfo, out chan<- RoomMsg) error {
	room := info.Room
	c, err := w.dial(ctx, room)
	if err != nil {
		return err
	}
	fctx, cancel := context.WithCancel(ctx)
	w.mu.Lock()
	w.clients[room] = &roomFollow{c: c, cancel: cancel}
	w.mu.Unlock()
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		ctx := fctx
		events := OrderEvents(ctx, c.Events(), GapWait)
		seen := map[string]bool{}
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-events:
				if !ok {
					return
				}
				var batch []runtime.Event
				batch = append(batch, ev)
			drain:
				for len(batch) < 256 {
					select {
					case more := <-events:
						batch = append(batch, more)
					default:
						break drain
					}
				}
				w.mu.Lock()
				for _, e := range batch {
					if e.Seq > 0 {
						w.seen[e.SessionID] = append(w.seen[e.SessionID], e)
					}
				}
				w.mu.Unlock()
				for _, e := range batch {
					if e.SessionID != "" && !seen[e.SessionID] {
						seen[e.SessionID] = true
						w.mu.Lock()
						w.byID[e.SessionID] = c
						w.mu.Unlock()
						select {
						case out <- RoomMsg{Session: e.SessionID, Room: info}:
						case <-ctx.Done():
							return
						}
					}
				}
				select {
				case out <- RoomMsg{Update: monitor.Update{Events: batch}}:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return nil
}

// Backend returns the room's examiner-commands backend for a session seen in a room.
func (w *RoomWatcher) Backend(ctx context.Context, session string) (tui.Backend, bool) {
	if w == nil {
		return nil, false
	}
	w.mu.Lock()
	c := w.byID[session]
	w.mu.Unlock()
	if c == nil {
		return nil, false
	}
	return RemoteBackend(ctx, c), true
}

// History returns the events a room has shown of session (nil for a session seen in no room).
func (w *RoomWatcher) History(session string) []runtime.Event {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.seen[session])
}

func (w *RoomWatcher) closeAll() {
	w.mu.Lock()
	for name, f := range w.clients {
		f.stop()
		delete(w.clients, name)
	}
	w.mu.Unlock()
	w.wg.Wait()
}
