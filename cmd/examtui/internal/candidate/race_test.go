package candidate

import (
	"net/http"
	"sync"
	"testing"

	"github.com/examtui/examtui/internal/pgtest"
)

// TestJoinRace: browsers pressing Join on one link at the same moment, over real HTTP on either
// store engine: exactly one gets a token, every other gets the 409 that tells the candidate to
// ask for a new link.
func TestJoinRace(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, target string) {
		f := newFixture(t, target, builtPage(t))
		const racers = 8
		code := f.code(t, Invite{Room: "exam-7", Identity: "ada"})
		browsers := make([]*http.Client, racers)
		for i := range browsers {
			browsers[i] = browser(t)
		}
		var (
			wg    sync.WaitGroup
			start = make(chan struct{})
			got   = make([]answer, racers)
			errs  = make([]error, racers)
		)
		for i, b := range browsers {
			wg.Go(func() {
				<-start
				got[i], errs[i] = tryJoin(b, f.srv.URL, codeBody(code))
			})
		}
		close(start)
		wg.Wait()
		won := -1
		for i, a := range got {
			switch {
			case errs[i] != nil:
				t.Errorf("browser %d: %v", i, errs[i])
			case a.status == http.StatusOK && won < 0:
				won = i
			case a.status != http.StatusConflict || a.body["error"] != msgUsed:
				t.Errorf("browser %d: %d %v (browser %d already won)", i, a.status, a.body, won)
			}
		}
		if won < 0 {
			t.Fatal("no browser got in")
		}
		if a := postJoin(t, browsers[won], f.srv.URL, codeBody(code)); a.status != http.StatusOK {
			t.Fatalf("the winner reloading: %d %v", a.status, a.body)
		}
	})
}
