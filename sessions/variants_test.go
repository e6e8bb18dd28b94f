package sessions

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/examtui/examtui/internal/pgtest"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/headless"
)

// variantScript is the draw tests' candidate script without its pin, so the node draws.
func variantScript(t testing.TB) *headless.Script {
	t.Helper()
	s, err := headless.LoadScript("../runtime/headless/testdata/variants.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s.Variants, s.Expect.Variants = nil, nil
	return s
}

// runBalanced runs the script headless as one stored session on st, with st counting the
// balanced draws, and returns the variant its node_entered names.
func runBalanced(t testing.TB, st *Store, s *headless.Script, i int) string {
	t.Helper()
	v, err := drawOnce(st, s)
	if err != nil {
		t.Fatalf("exam %d: %v", i, err)
	}
	return v
}

// drawOnce is runBalanced without the test: workers call it from their own goroutines.
func drawOnce(st *Store, s *headless.Script) (string, error) {
	ctx := context.Background()
	exam, err := s.CompileSpec()
	if err != nil {
		return "", err
	}
	sess, err := st.Create(ctx, Meta{Exam: exam, Examiner: "offline", Input: runtime.SourceTyped, StartedAt: headless.DefaultStart})
	if err != nil {
		return "", err
	}
	j, err := st.Journal(ctx, sess.ID)
	if err != nil {
		return "", err
	}
	res, err := headless.Run(ctx, s, headless.Options{Sink: j, SessionID: sess.ID, Start: headless.DefaultStart,
		ControllerOptions: []runtime.Option{runtime.WithVariantCounter(st)}})
	if cerr := j.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	for _, ev := range res.Log {
		if ev.Event != runtime.EventNodeEntered {
			continue
		}
		p, err := ev.Decode()
		if err != nil {
			return "", err
		}
		if ne := p.(*runtime.NodeEnteredPayload); ne.NodeID == "case" {
			if ne.VariantDraw != runtime.DrawBalanced {
				return "", fmt.Errorf("drew %q by %q, want a balanced draw", ne.Variant, ne.VariantDraw)
			}
			return ne.Variant, nil
		}
	}
	return "", fmt.Errorf("never entered the case node")
}

// withinOne fails unless the three variants were each drawn, all within one of each other,
// n in all, as the node_entered events and the store's counts both say.
func withinOne(t *testing.T, st *Store, drawn map[string]int, n int) {
	t.Helper()
	counts, err := st.VariantCounts(context.Background(), "variants", "case")
	if err != nil {
		t.Fatal(err)
	}
	lo, hi, total := n, 0, 0
	for _, v := range []string{"breakfast", "spa", "parking"} {
		if counts[v] != drawn[v] {
			t.Errorf("store counts %v, node_entered events %v", counts, drawn)
		}
		lo, hi, total = min(lo, drawn[v]), max(hi, drawn[v]), total+drawn[v]
	}
	if hi-lo > 1 || total != n {
		t.Errorf("%d exams drew %v: not within one of each other", n, drawn)
	}
}

// TestBalancedDraws: fifty headless exams of a node with three variants on one store draw
// every variant within one of the others.
func TestBalancedDraws(t *testing.T) { forEachEngine(t, testBalancedDraws) }

func testBalancedDraws(t *testing.T, eng testEngine) {
	st := eng.open(t)
	s := variantScript(t)
	drawn := map[string]int{}
	for i := range 50 {
		drawn[runBalanced(t, st, s, i)]++
	}
	withinOne(t, st, drawn, 50)
}

// TestBalancedDrawsConcurrentPostgres: two workers, each with its own Store handle on one
// PostgreSQL database, run 25 exams each at once; no two draws read the same counts, so the
// cohort is still within one.
func TestBalancedDrawsConcurrentPostgres(t *testing.T) {
	target := pgtest.NewDB(t)
	stores := make([]*Store, 2)
	for i := range stores {
		stores[i] = openStore(t, target)
		t.Cleanup(func() { _ = stores[i].Close() })
	}
	s := variantScript(t)
	var mu sync.Mutex
	drawn := map[string]int{}
	var wg sync.WaitGroup
	for w, st := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				v, err := drawOnce(st, s)
				if err != nil {
					t.Errorf("worker %d exam %d: %v", w, i, err)
					return
				}
				mu.Lock()
				drawn[v]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	withinOne(t, stores[0], drawn, 50)
}

func TestDrawVariantRefusesNothing(t *testing.T) {
	st := openStore(t, t.TempDir())
	t.Cleanup(func() { _ = st.Close() })
	_, err := st.DrawVariant(context.Background(), runtime.VariantRequest{ExamID: "x", NodeID: "n"})
	if err == nil || !strings.Contains(err.Error(), "no variants") {
		t.Errorf("empty draw: %v", err)
	}
}

// TestConcurrentDrawsPostgres: rounds of draws all started at once through two Store handles
// on one PostgreSQL database, each draw as an exam entering the node makes it. Were two draws
// to read the same counts they would take the same least-used variant, and the round, with no
// later draw to even it out, would end unbalanced.
func TestConcurrentDrawsPostgres(t *testing.T) {
	target := pgtest.NewDB(t)
	stores := make([]*Store, 2)
	for i := range stores {
		stores[i] = openStore(t, target)
		t.Cleanup(func() { _ = stores[i].Close() })
	}
	const rounds, perRound = 5, 12 // 12 draws of 3 variants: a balanced round ends level
	drawn := map[string]int{}
	for r := range rounds {
		var mu sync.Mutex
		var wg sync.WaitGroup
		start := make(chan struct{})
		for g := range perRound {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				v, err := stores[g%len(stores)].DrawVariant(context.Background(), runtime.VariantRequest{ExamID: "variants", NodeID: "case",
					SessionID: fmt.Sprintf("s%d-%d", r, g), Variants: []string{"breakfast", "spa", "parking"}, Seed: uint64(r*100 + g)})
				if err != nil {
					t.Errorf("draw: %v", err)
					return
				}
				mu.Lock()
				drawn[v]++
				mu.Unlock()
			}()
		}
		close(start)
		wg.Wait()
		withinOne(t, stores[1], drawn, (r+1)*perRound)
		if t.Failed() {
			t.Fatalf("round %d", r+1)
		}
	}
}

// TestSessionRecordsVariant: a stored session's summary, its Markdown (what `sessions show`
// prints) and its JSONL export name the variant the candidate got.
func TestSessionRecordsVariant(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, t.TempDir())
	t.Cleanup(func() { _ = st.Close() })
	s, err := headless.LoadScript("../runtime/headless/testdata/variants.yaml") // pinned to spa
	if err != nil {
		t.Fatal(err)
	}
	exam, err := s.CompileSpec()
	if err != nil {
		t.Fatal(err)
	}
	sess := createSession(t, st, Meta{Exam: exam, Examiner: "offline", Input: runtime.SourceTyped, StartedAt: headless.DefaultStart})
	j := openJournal(t, st, sess.ID)
	if _, err := headless.Run(ctx, s, headless.Options{Sink: j, SessionID: sess.ID, Start: headless.DefaultStart}); err != nil {
		t.Fatal(err)
	}
	closeJournal(t, j)
	sum, err := Summarize(getSession(t, st, sess.ID), loadEvents(t, st, sess.ID))
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Nodes) == 0 || sum.Nodes[0].Variant != "spa" {
		t.Fatalf("summary nodes %+v", sum.Nodes)
	}
	if md := RenderMarkdown(sum, MarkdownOptions{}); !strings.Contains(md, "| 1 | case (variant spa) | assessment |") {
		t.Errorf("markdown lacks the variant:\n%s", md)
	}
	var b strings.Builder
	if err := st.Export(ctx, &b, sess.ID, FormatJSONL, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"variant":"spa","variantDraw":"pinned"`) {
		t.Errorf("the JSONL export lacks the variant")
	}
}
