package livekit_test

import (
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/transport/livekit"
)

// TestWireVersionOnInputs: every message examtui puts on the input topics carries the wire's
// schema version; the readers take a message without one (an older sender), a newer version
// with fields they do not know (forward compatible), and refuse only a version that is none.
func TestWireVersionOnInputs(t *testing.T) {
	admin, err := livekit.EncodeAdminInstruction(runtime.AdminQueued, "Probe the budget.")
	if err != nil {
		t.Fatal(err)
	}
	control, err := livekit.EncodeControl(runtime.ControlPause)
	if err != nil {
		t.Fatal(err)
	}
	cand, err := livekit.EncodeCandidateText("a second line", 0.9)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"candidate_text": cand, "admin_instruction": admin, "control": control} {
		var m struct {
			SchemaVersion *int `json:"schemaVersion"`
		}
		if err := json.Unmarshal(data, &m); err != nil || m.SchemaVersion == nil || *m.SchemaVersion != livekit.WireVersion {
			t.Errorf("%s: %s carries no schemaVersion %d", name, data, livekit.WireVersion)
		}
	}
	for _, tc := range []struct {
		name, in string
		ok       bool
	}{
		{"no version (older sender)", `{"type":"candidate_text","text":"hi"}`, true},
		{"this version", `{"schemaVersion":1,"type":"candidate_text","text":"hi"}`, true},
		{"newer version, unknown fields", `{"schemaVersion":7,"type":"candidate_text","text":"hi","lang":"en","turn":{"id":3}}`, true},
		{"negative version", `{"schemaVersion":-1,"type":"candidate_text","text":"hi"}`, false},
		{"version as text", `{"schemaVersion":"1","type":"candidate_text","text":"hi"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := livekit.ParseCandidateInput([]byte(tc.in))
			switch {
			case tc.ok && (err != nil || got.Text != "hi"):
				t.Fatalf("refused: %+v, %v", got, err)
			case !tc.ok && !errors.Is(err, livekit.ErrInvalidMessage):
				t.Fatalf("accepted: %+v, %v", got, err)
			}
			_, err = livekit.ParseExaminerCommand([]byte(`{"schemaVersion":` + versionOf(tc.in) + `,"type":"control","action":"pause"}`))
			if tc.ok != (err == nil) {
				t.Fatalf("examiner command: %v", err)
			}
		})
	}
}

// versionOf is the schemaVersion literal of a case ("0" when it has none).
func versionOf(in string) string {
	var m map[string]json.RawMessage
	_ = json.Unmarshal([]byte(in), &m)
	if v, ok := m["schemaVersion"]; ok {
		return string(v)
	}
	return "0"
}

// TestRoomEventsCarryWireVersion: the event envelopes the bot sends on the events topic, as a
// participant with another tool receives them, carry schemaVersion and the stored envelope's
// fields unchanged (the candidate page and other readers rely on those).
func TestRoomEventsCarryWireVersion(t *testing.T) {
	e := startExam(t)
	var mu sync.Mutex
	var packets [][]byte
	cb := &lksdk.RoomCallback{ParticipantCallback: lksdk.ParticipantCallback{
		OnDataPacket: func(data lksdk.DataPacket, params lksdk.DataReceiveParams) {
			if u, ok := data.(*lksdk.UserDataPacket); ok && u.Topic == livekit.TopicEvents && params.SenderIdentity == "examtui-bot" {
				mu.Lock()
				packets = append(packets, append([]byte(nil), u.Payload...))
				mu.Unlock()
			}
		},
	}}
	room, err := lksdk.ConnectToRoomWithToken(e.srv.URL, e.srv.Token("examiner-tool", livekit.RoleExaminer), cb, lksdk.WithAutoSubscribe(false))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(room.Disconnect)
	e.waitAudience(t, "examiner-tool")
	evs := runtimetest.SampleEvents(t)
	for _, ev := range evs {
		if err := e.bot.Publish(ev); err != nil {
			t.Fatal(err)
		}
	}
	testutil.Eventually(t, 10*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(packets) >= len(evs)
	}, "every event to reach the examiner's tool")
	mu.Lock()
	defer mu.Unlock()
	for i, data := range packets[:len(evs)] {
		var got map[string]json.RawMessage
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatal(err)
		}
		if v := string(got["schemaVersion"]); v != "1" {
			t.Errorf("seq %d: schemaVersion %q in %s", evs[i].Seq, v, data)
		}
		stored, err := json.Marshal(evs[i])
		if err != nil {
			t.Fatal(err)
		}
		var want map[string]json.RawMessage
		if err := json.Unmarshal(stored, &want); err != nil {
			t.Fatal(err)
		}
		for k, v := range want {
			if string(got[k]) != string(v) {
				t.Errorf("seq %d: %s is %s on the wire, %s stored", evs[i].Seq, k, got[k], v)
			}
		}
		ev, version, err := livekit.DecodeRoomEvent(data)
		if err != nil || version != livekit.WireVersion || ev.Seq != evs[i].Seq {
			t.Errorf("DecodeRoomEvent: seq %d version %d, %v", ev.Seq, version, err)
		}
	}
	// A newer bot's envelope, with a field this reader does not know, still reads.
	ev, version, err := livekit.DecodeRoomEvent([]byte(`{"event":"spoken","sessionId":"s","seq":3,"timestamp":"2026-11-23T09:30:00Z","payload":{"text":"Hi."},"schemaVersion":4,"trace":"abc"}`))
	if err != nil || version != 4 || ev.Event != runtime.EventSpoken || ev.Seq != 3 {
		t.Errorf("newer envelope: %+v version %d, %v", ev, version, err)
	}
}
