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

	"github.com/examtui/examtui/audio/livekit"
	"github.com/examtui/examtui/monitor"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/tui"
)

// roomScanInterval is how often the LiveKit server is asked which rooms exist.
const roomScanInterval = 2 * time.Second

// RoomMsg is what the room watcher reports: events of an exam in a room, or that a session
// runs in a room.
type RoomMsg struct {
	Update  monitor.Update
	Session string // with Room: this session runs in Room
	Room    monitor.RoomInfo
}

// RoomWatcher finds the LiveKit rooms that run exams (an exam bot is in them) and follows each
// as an examiner, the way examtui watch does: its events (replayed from the start on joining)
// feed the board, and controls go back over the room's examiner-commands data topic. Exams
// whose bot writes to another store than the monitor's are seen this way too.
type RoomWatcher struct {
	rooms *lksdk.RoomServiceClient
	dial  func(ctx context.Context, room string) (*livekit.Client, error)
	log   *slog.Logger

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
	// Dial joins a room as an examiner (examtui watch's dial).
	Dial func(ctx context.Context, room string) (*livekit.Client, error)
	Log  *slog.Logger
}

// NewRoomWatcher returns a watcher; Run starts it.
func NewRoomWatcher(c RoomWatchConfig) (*RoomWatcher, error) {
	if c.Rooms == nil || c.Dial == nil {
		return nil, errors.New("room watcher: a room service and a dial function are required")
	}
	log := c.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &RoomWatcher{rooms: c.Rooms, dial: c.Dial, log: log,
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
	return nil
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
