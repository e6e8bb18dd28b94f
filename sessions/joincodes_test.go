package sessions

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

func testHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// TestJoinCodes: a code's life in the store on both engines: stored as given, redeemed by one
// seat, redeemed again by that seat only while the seat is young, refused otherwise with the
// error that says why.
func TestJoinCodes(t *testing.T) {
	forEachEngine(t, func(t *testing.T, eng testEngine) {
		ctx := context.Background()
		st := eng.open(t)
		now := time.Unix(1_800_000_000, 0).UTC()
		code := JoinCode{CodeHash: testHash("code"), Room: "exam-42", Identity: "ada", DisplayName: "Ada", Created: now, Expires: now.Add(time.Hour)}
		if err := st.CreateJoinCode(ctx, code); err != nil {
			t.Fatal(err)
		}
		if err := st.CreateJoinCode(ctx, code); err == nil {
			t.Fatal("the same code stored twice")
		}
		for name, bad := range map[string]JoinCode{
			"short hash":       {CodeHash: "abc", Room: "r", Identity: "i", Created: now, Expires: now.Add(time.Hour)},
			"no room":          {CodeHash: testHash("x"), Identity: "i", Created: now, Expires: now.Add(time.Hour)},
			"no identity":      {CodeHash: testHash("x"), Room: "r", Created: now, Expires: now.Add(time.Hour)},
			"expires at birth": {CodeHash: testHash("x"), Room: "r", Identity: "i", Created: now, Expires: now},
		} {
			if err := st.CreateJoinCode(ctx, bad); !errors.Is(err, ErrInvalidJoinCode) {
				t.Errorf("%s: %v, want ErrInvalidJoinCode", name, err)
			}
		}
		const seatTTL = 2 * time.Hour
		redeem := func(hash, seat string, at time.Duration) (JoinCode, error) {
			return st.RedeemJoinCode(ctx, hash, seat, now.Add(at), seatTTL)
		}
		got, err := redeem(code.CodeHash, testHash("seat-a"), time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if got.Room != "exam-42" || got.Identity != "ada" || got.DisplayName != "Ada" || !got.Redeemed.Equal(now.Add(time.Minute)) || got.SeatHash != testHash("seat-a") {
			t.Fatalf("redeemed %+v", got)
		}
		for _, tc := range []struct {
			name string
			hash string
			seat string
			at   time.Duration
			want error
		}{
			{"the same seat again", code.CodeHash, testHash("seat-a"), 30 * time.Minute, nil},
			{"the same seat after the link's expiry", code.CodeHash, testHash("seat-a"), 90 * time.Minute, nil},
			{"another seat", code.CodeHash, testHash("seat-b"), 2 * time.Minute, ErrJoinCodeUsed},
			{"the same seat grown old", code.CodeHash, testHash("seat-a"), time.Minute + seatTTL, ErrJoinCodeExpired},
			{"unknown", testHash("nope"), testHash("seat-a"), time.Minute, ErrJoinCodeNotFound},
		} {
			if _, err := redeem(tc.hash, tc.seat, tc.at); !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
				t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
			}
		}
		late := JoinCode{CodeHash: testHash("late"), Room: "exam-42", Identity: "bob", Created: now, Expires: now.Add(time.Hour)}
		if err := st.CreateJoinCode(ctx, late); err != nil {
			t.Fatal(err)
		}
		if _, err := redeem(late.CodeHash, testHash("seat-c"), time.Hour); !errors.Is(err, ErrJoinCodeExpired) {
			t.Errorf("first use at expiry: %v, want ErrJoinCodeExpired", err)
		}
		all, err := st.JoinCodes(ctx, "exam-42")
		if err != nil || len(all) != 2 || !all[1].Redeemed.IsZero() && all[1].CodeHash == late.CodeHash {
			t.Fatalf("JoinCodes: %+v %v", all, err)
		}
	})
}

// TestJoinCodeRace: browsers racing to redeem one code: on either engine exactly one wins and
// every other is told the code is used.
func TestJoinCodeRace(t *testing.T) {
	forEachEngine(t, func(t *testing.T, eng testEngine) {
		ctx := context.Background()
		st := eng.open(t)
		now := time.Now()
		const codes, racers = 10, 8
		for c := range codes {
			hash := testHash(fmt.Sprint("race-", c))
			if err := st.CreateJoinCode(ctx, JoinCode{CodeHash: hash, Room: "r", Identity: "i", Created: now, Expires: now.Add(time.Hour)}); err != nil {
				t.Fatal(err)
			}
			var (
				wg    sync.WaitGroup
				start = make(chan struct{})
				errs  = make([]error, racers)
			)
			for r := range racers {
				wg.Go(func() {
					<-start
					_, errs[r] = st.RedeemJoinCode(ctx, hash, testHash(fmt.Sprint("seat-", r)), now, time.Hour)
				})
			}
			close(start)
			wg.Wait()
			wins := 0
			for r, err := range errs {
				switch {
				case err == nil:
					wins++
				case !errors.Is(err, ErrJoinCodeUsed):
					t.Errorf("code %d racer %d: %v", c, r, err)
				}
			}
			if wins != 1 {
				t.Fatalf("code %d: %d winners of %d racers, want 1", c, wins, racers)
			}
		}
	})
}

// TestJoinCodeRevoke: a new link for the same candidate and room revokes the earlier one and
// its seat (the seat cookie stops getting tokens); RevokeJoinCodes revokes by hand; a link of
// another candidate or room stands. Before revocation a stolen link's seat kept minting for 12 h.
func TestJoinCodeRevoke(t *testing.T) {
	forEachEngine(t, func(t *testing.T, eng testEngine) {
		ctx := context.Background()
		st := eng.open(t)
		now := time.Unix(1_800_000_000, 0).UTC()
		const seatTTL = 12 * time.Hour
		mk := func(name, room, id string, at time.Duration) JoinCode {
			c := JoinCode{CodeHash: testHash(name), Room: room, Identity: id, Created: now.Add(at), Expires: now.Add(at + 24*time.Hour)}
			if err := st.CreateJoinCode(ctx, c); err != nil {
				t.Fatal(err)
			}
			return c
		}
		first := mk("first", "exam-1", "ada", 0)
		other := mk("other", "exam-1", "bob", 0)
		elsewhere := mk("elsewhere", "exam-2", "ada", 0)
		if _, err := st.RedeemJoinCode(ctx, first.CodeHash, testHash("thief"), now.Add(time.Minute), seatTTL); err != nil {
			t.Fatal(err)
		}
		second := mk("second", "exam-1", "ada", 10*time.Minute)
		if _, err := st.RedeemJoinCode(ctx, first.CodeHash, testHash("thief"), now.Add(11*time.Minute), seatTTL); !errors.Is(err, ErrJoinCodeRevoked) {
			t.Errorf("the old link's seat after a new link: %v, want ErrJoinCodeRevoked", err)
		}
		if _, err := st.RedeemJoinCode(ctx, second.CodeHash, testHash("ada"), now.Add(12*time.Minute), seatTTL); err != nil {
			t.Errorf("the new link: %v", err)
		}
		for _, c := range []JoinCode{other, elsewhere} {
			if _, err := st.RedeemJoinCode(ctx, c.CodeHash, testHash("s-"+c.Identity+c.Room), now.Add(13*time.Minute), seatTTL); err != nil {
				t.Errorf("%s in %s: %v, want it to stand", c.Identity, c.Room, err)
			}
		}
		n, err := st.RevokeJoinCodes(ctx, "exam-1", "", now.Add(20*time.Minute))
		if err != nil || n != 2 {
			t.Fatalf("RevokeJoinCodes(exam-1): %d %v, want 2", n, err)
		}
		if _, err := st.RedeemJoinCode(ctx, second.CodeHash, testHash("ada"), now.Add(21*time.Minute), seatTTL); !errors.Is(err, ErrJoinCodeRevoked) {
			t.Errorf("the revoked link's seat: %v, want ErrJoinCodeRevoked", err)
		}
		if _, err := st.RevokeJoinCodes(ctx, "", "", now); !errors.Is(err, ErrInvalidJoinCode) {
			t.Errorf("no room: %v", err)
		}

		// The purge keeps only what can still admit someone: elsewhere's seat is young.
		mk("unused", "exam-3", "cy", 0)
		k, err := st.PurgeJoinCodes(ctx, now.Add(12*time.Hour), seatTTL)
		if err != nil || k != 3 {
			t.Fatalf("purge: %d %v, want 3 (the revoked)", k, err)
		}
		if left, _ := st.JoinCodes(ctx, "exam-2"); len(left) != 1 {
			t.Errorf("the seated link in exam-2 was purged: %+v", left)
		}
		if k, err := st.PurgeJoinCodes(ctx, now.Add(25*time.Hour), seatTTL); err != nil || k != 2 {
			t.Errorf("purge after the seat aged and the unused link expired: %d %v, want 2", k, err)
		}
	})
}

// TestJoinCodeCandidate: a link made for a roster candidate keeps the id, RoomCandidateID gives
// the latest link's, and an id the roster does not hold is refused with nothing stored.
func TestJoinCodeCandidate(t *testing.T) {
	forEachEngine(t, func(t *testing.T, eng testEngine) {
		ctx := context.Background()
		st := eng.open(t)
		now := time.Unix(1_800_000_000, 0).UTC()
		if err := st.PutCandidates(ctx, []Candidate{{CandidateID: "s-001", Name: "Ada"}}); err != nil {
			t.Fatal(err)
		}
		bad := JoinCode{CodeHash: testHash("bad"), Room: "r", Identity: "ada", CandidateID: "s-009", Created: now, Expires: now.Add(time.Hour)}
		if err := st.CreateJoinCode(ctx, bad); !errors.Is(err, ErrNoCandidate) {
			t.Fatalf("a link for a candidate not in the roster: %v, want ErrNoCandidate", err)
		}
		if got, err := st.RoomCandidateID(ctx, "r", "ada"); err != nil || got != "" {
			t.Fatalf("no link yet: %q, %v", got, err)
		}
		good := JoinCode{CodeHash: testHash("good"), Room: "r", Identity: "ada", CandidateID: "s-001", Created: now, Expires: now.Add(time.Hour)}
		if err := st.CreateJoinCode(ctx, good); err != nil {
			t.Fatal(err)
		}
		codes, err := st.JoinCodes(ctx, "r")
		if err != nil || len(codes) != 1 || codes[0].CandidateID != "s-001" {
			t.Fatalf("stored codes %+v, %v", codes, err)
		}
		if got, err := st.RoomCandidateID(ctx, "r", "ada"); err != nil || got != "s-001" {
			t.Fatalf("RoomCandidateID = %q, %v; want s-001", got, err)
		}
		// A newer link for the same identity without an id replaces it.
		plain := JoinCode{CodeHash: testHash("plain"), Room: "r", Identity: "ada", Created: now.Add(time.Minute), Expires: now.Add(time.Hour)}
		if err := st.CreateJoinCode(ctx, plain); err != nil {
			t.Fatal(err)
		}
		if got, err := st.RoomCandidateID(ctx, "r", "ada"); err != nil || got != "" {
			t.Fatalf("after a newer link without an id: %q, %v", got, err)
		}
	})
}
