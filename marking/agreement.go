package marking

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"slices"

	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/spec"
)

// Agreement is how far markers agree across an exam's sessions (docs/marking.md,
// "Agreement"): per criterion and over all criteria, exact agreement and Krippendorff's α
// (ordinal, any number of markers) with a bootstrap interval; per pair of markers, never
// pooled, Cohen's κ and quadratic-weighted κ with intervals, and agreement on totals and grade
// bands; per marker, severity; and warnings where a figure says less than it seems.
type Agreement struct {
	ExamID  string           `json:"examId"`
	Metric  Metric           `json:"alphaMetric"`
	Overall AgreementFigures `json:"overall"`
	// Panel compares the model panel's latest run with the final levels (PanelAgreement); set
	// only when asked for (marks agreement --with-panel).
	Panel    *AgreementFigures  `json:"panel,omitempty"`
	Criteria []CriterionFigures `json:"criteria"`
	Markers  []string           `json:"markers"`
	Pairs    []PairFigures      `json:"pairs"`
	Severity []Severity         `json:"severity"`
	Warnings []string           `json:"warnings"`
}

// CriterionFigures are the figures of one criterion.
type CriterionFigures struct {
	Criterion string `json:"criterion"`
	AgreementFigures
}

// AgreementFigures are the figures over a set of items (criteria of sessions marked by two or
// more markers). A figure is nil when it is undefined; Undefined says why.
type AgreementFigures struct {
	Items int `json:"items"`
	// Exact is the share of items every marker gave the same level.
	Exact     *float64  `json:"exactAgreement"`
	Alpha     *float64  `json:"krippendorffsAlpha"`
	AlphaCI   *Interval `json:"alphaInterval,omitempty"`
	Undefined string    `json:"undefined,omitempty"`
}

// PairFigures compare two markers over the items both marked, and over the sessions both
// marked completely (totals and bands).
type PairFigures struct {
	A               string    `json:"a"`
	B               string    `json:"b"`
	Items           int       `json:"items"`
	Exact           *float64  `json:"exactAgreement"`
	Kappa           *float64  `json:"cohensKappa"`
	KappaCI         *Interval `json:"kappaInterval,omitempty"`
	WeightedKappa   *float64  `json:"weightedKappa"`
	WeightedKappaCI *Interval `json:"weightedKappaInterval,omitempty"`
	Sessions        int       `json:"sessions"`
	SameTotal       *float64  `json:"sameTotal"`
	MeanTotalDiff   *float64  `json:"meanAbsTotalDifference"`
	SameBand        *float64  `json:"sameBand"`
	Undefined       string    `json:"undefined,omitempty"`
}

// Severity is how a marker's levels sit against the final levels: the mean of (their rank −
// the final rank) over the criteria with a final level; above 0 they mark generously, below
// severely.
type Severity struct {
	Marker   string   `json:"marker"`
	Items    int      `json:"items"`
	MeanDiff *float64 `json:"meanDifference"`
}

// item is one criterion of one session with each marker's rank.
type item struct {
	session, criterion string
	by                 map[string]int
}

func (it item) ranks(markers []string) []int {
	var out []int
	for _, m := range markers {
		if r, ok := it.by[m]; ok {
			out = append(out, r)
		}
	}
	return out
}

// smallN is the number of items below which an interval is too wide to lean on.
const smallN = 30

// ExamAgreement computes the agreement figures of an exam's marks in the store.
func ExamAgreement(ctx context.Context, st *sessions.Store, examID string) (*Agreement, error) {
	marks, err := st.ExamMarks(ctx, examID) // by session, criterion, marker
	if err != nil {
		return nil, err
	}
	schemes := map[string]*spec.CompiledMarking{}
	finals := map[[2]string]int{} // session, criterion → final rank
	var items []item
	var order []string
	markerSet := map[string]bool{}
	byMarkerSession := map[[2]string][]sessions.Mark{}
	for i := 0; i < len(marks); {
		j := i
		for j < len(marks) && marks[j].SessionID == marks[i].SessionID && marks[j].Criterion == marks[i].Criterion {
			j++
		}
		sid := marks[i].SessionID
		m, ok := schemes[sid]
		if !ok {
			sess, err := st.Get(ctx, sid)
			if err != nil {
				return nil, err
			}
			exam, err := examOf(sess)
			if err != nil {
				return nil, err
			}
			m = exam.Marking
			schemes[sid] = m
			all, fin, err := marksOf(ctx, st, sid)
			if err != nil {
				return nil, err
			}
			for _, cs := range States(m, all, fin) {
				if cs.Final != nil {
					finals[[2]string{sid, cs.Criterion}] = m.Criterion(cs.Criterion).Rank(cs.Final.Level)
				}
			}
		}
		if c := m.Criterion(marks[i].Criterion); c != nil {
			it := item{session: sid, criterion: c.ID, by: map[string]int{}}
			for _, mk := range marks[i:j] {
				markerSet[mk.Marker] = true
				byMarkerSession[[2]string{mk.Marker, sid}] = append(byMarkerSession[[2]string{mk.Marker, sid}], mk)
				if r := c.Rank(mk.Level); r >= 0 {
					it.by[mk.Marker] = r
				}
			}
			items = append(items, it)
			if !slices.Contains(order, c.ID) {
				order = append(order, c.ID)
			}
		}
		i = j
	}
	if len(marks) > 0 {
		m := schemes[marks[0].SessionID]
		slices.SortStableFunc(order, func(x, y string) int { return schemeIndex(m, x) - schemeIndex(m, y) })
	}
	a := &Agreement{ExamID: examID, Metric: MetricOrdinal, Criteria: []CriterionFigures{}, Pairs: []PairFigures{},
		Severity: []Severity{}, Warnings: []string{}, Markers: []string{}}
	for m := range markerSet {
		a.Markers = append(a.Markers, m)
	}
	slices.Sort(a.Markers)
	seed := seedOf(examID)
	a.Overall = figures(items, a.Markers, seed)
	for _, c := range order {
		var sub []item
		for _, it := range items {
			if it.criterion == c {
				sub = append(sub, it)
			}
		}
		a.Criteria = append(a.Criteria, CriterionFigures{Criterion: c, AgreementFigures: figures(sub, a.Markers, seed)})
	}
	for i, x := range a.Markers {
		for _, y := range a.Markers[i+1:] {
			p := pairFigures(x, y, items, seed)
			totalsOf(&p, schemes, byMarkerSession)
			a.Pairs = append(a.Pairs, p)
		}
	}
	for _, mk := range a.Markers {
		s := Severity{Marker: mk}
		sum := 0.0
		for _, it := range items {
			r, ok := it.by[mk]
			f, final := finals[[2]string{it.session, it.criterion}]
			if ok && final {
				s.Items++
				sum += float64(r - f)
			}
		}
		if s.Items > 0 {
			v := sum / float64(s.Items)
			s.MeanDiff = &v
		}
		a.Severity = append(a.Severity, s)
	}
	a.Warnings = warnings(a)
	return a, nil
}

// seedOf makes an exam's bootstrap reproducible: the same marks give the same intervals.
func seedOf(examID string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(examID))
	return h.Sum64()
}

// figures computes exact agreement and α over the items marked two or more times.
func figures(items []item, markers []string, seed uint64) AgreementFigures {
	var f AgreementFigures
	var units [][]int
	same := 0
	for _, it := range items {
		r := it.ranks(markers)
		if len(r) < 2 {
			continue
		}
		f.Items++
		units = append(units, r)
		if slices.Min(r) == slices.Max(r) {
			same++
		}
	}
	if f.Items == 0 {
		f.Undefined = ErrTooFewRatings.Error()
		return f
	}
	ex := float64(same) / float64(f.Items)
	f.Exact = &ex
	if f.Items < 2 {
		f.Undefined = "agreement undefined: α needs two or more items"
		return f
	}
	if al, err := KrippendorffAlpha(units, MetricOrdinal); err == nil {
		f.Alpha = &al
		f.AlphaCI = bootstrap(len(units), seed, func(idx []int) (float64, error) {
			sample := make([][]int, len(idx))
			for i, k := range idx {
				sample[i] = units[k]
			}
			return KrippendorffAlpha(sample, MetricOrdinal)
		})
	} else if !errors.Is(err, ErrTooFewRatings) {
		f.Undefined = err.Error()
	}
	return f
}

// pairFigures compares markers x and y over the items both marked.
func pairFigures(x, y string, items []item, seed uint64) PairFigures {
	p := PairFigures{A: x, B: y}
	var a, b []int
	for _, it := range items {
		rx, okx := it.by[x]
		ry, oky := it.by[y]
		if okx && oky {
			a, b = append(a, rx), append(b, ry)
		}
	}
	p.Items = len(a)
	if ex, err := ExactAgreement(a, b); err == nil {
		p.Exact = &ex
	} else {
		p.Undefined = err.Error()
		return p
	}
	pick := func(idx []int) ([]int, []int) {
		sa, sb := make([]int, len(idx)), make([]int, len(idx))
		for i, k := range idx {
			sa[i], sb[i] = a[k], b[k]
		}
		return sa, sb
	}
	if k, err := CohenKappa(a, b); err == nil {
		p.Kappa = &k
		p.KappaCI = bootstrap(len(a), seed^1, func(idx []int) (float64, error) { return CohenKappa(pick(idx)) })
	} else {
		p.Undefined = err.Error()
	}
	if k, err := WeightedKappa(a, b); err == nil {
		p.WeightedKappa = &k
		p.WeightedKappaCI = bootstrap(len(a), seed^2, func(idx []int) (float64, error) { return WeightedKappa(pick(idx)) })
	}
	return p
}

// totalsOf adds the pair's agreement on totals and bands over the sessions both marked in full.
func totalsOf(p *PairFigures, schemes map[string]*spec.CompiledMarking, by map[[2]string][]sessions.Mark) {
	same, band, diff := 0, 0, 0.0
	for sid, m := range schemes {
		ma, mb := by[[2]string{p.A, sid}], by[[2]string{p.B, sid}]
		if len(ma) != len(m.Criteria) || len(mb) != len(m.Criteria) {
			continue
		}
		ta, tb := 0, 0
		for _, mk := range ma {
			ta += mk.Marks
		}
		for _, mk := range mb {
			tb += mk.Marks
		}
		p.Sessions++
		if ta == tb {
			same++
		}
		ra, rb := ResultOf(m, ta), ResultOf(m, tb)
		if ra.Grade == rb.Grade && (ra.Passed == nil) == (rb.Passed == nil) && (ra.Passed == nil || *ra.Passed == *rb.Passed) {
			band++
		}
		diff += math.Abs(float64(ta - tb))
	}
	if p.Sessions > 0 {
		n := float64(p.Sessions)
		st, sb, md := float64(same)/n, float64(band)/n, diff/n
		p.SameTotal, p.SameBand, p.MeanTotalDiff = &st, &sb, &md
	}
}

// warnings say where a figure says less than it seems.
func warnings(a *Agreement) []string {
	out := []string{}
	if n := a.Overall.Items; n > 0 && n < smallN {
		out = append(out, fmt.Sprintf("small sample: %d items marked twice (under %d); the intervals are wide", n, smallN))
	}
	if a.Overall.Items == 1 {
		out = append(out, "one item marked twice: α is undefined")
	}
	for _, p := range a.Pairs {
		if p.Exact != nil && *p.Exact >= 0.8 && (p.Kappa == nil || *p.Kappa < 0.4) && p.Items > 0 {
			out = append(out, fmt.Sprintf("%s and %s agree on %.0f%% of items but κ is %s: the levels given are concentrated on few levels (prevalence), so chance agreement is high",
				p.A, p.B, *p.Exact*100, kappaWord(p.Kappa)))
		}
	}
	return out
}

func kappaWord(k *float64) string {
	if k == nil {
		return "undefined"
	}
	return fmt.Sprintf("%.2f", *k)
}

func schemeIndex(m *spec.CompiledMarking, id string) int {
	for i, c := range m.Criteria {
		if c.ID == id {
			return i
		}
	}
	return len(m.Criteria)
}
