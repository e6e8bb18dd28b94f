package candidate

import (
	"context"
	"net/http"
	"testing"
	"time"
)

// BenchmarkJoin: one candidate's Join over real HTTP on a SQLite store: the code redeemed (one
// conditional UPDATE and a read) and the token minted. The code is made outside the timer.
func BenchmarkJoin(b *testing.B) {
	f := newFixture(b, b.TempDir(), builtPage(b))
	c := &http.Client{}
	for b.Loop() {
		b.StopTimer()
		code, err := NewCode(context.Background(), f.st, Invite{Room: "bench", Identity: "ada"}, time.Now())
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		a, err := tryJoin(c, f.srv.URL, codeBody(code))
		if err != nil || a.status != http.StatusOK {
			b.Fatalf("%v %d %v", err, a.status, a.body)
		}
	}
}
