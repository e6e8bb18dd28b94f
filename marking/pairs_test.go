package marking

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestWeightedKappaHandComputed: quadratic-weighted κ against values worked by hand.
func TestWeightedKappaHandComputed(t *testing.T) {
	// One near miss in four: Σw·O = 1; E from the margins (1,1,2 and 1,2,1 over 4):
	// Σw·E = (2·1 + 1·4)/4 + (1 + 1)/4 + (2·4 + 2·2·1)/4 = 1.5 + 0.5 + 3 = 5 → 1 − 1/5.
	if k, err := WeightedKappa([]int{1, 2, 3, 3}, []int{1, 2, 3, 2}); err != nil || math.Abs(k-0.8) > 1e-12 {
		t.Errorf("one near miss: %v %v, want 0.8", k, err)
	}
	if k, err := WeightedKappa([]int{1, 2}, []int{2, 1}); err != nil || math.Abs(k+1) > 1e-12 {
		t.Errorf("swapped: %v %v, want -1", k, err)
	}
	// A far miss weighs more than a near one: 0 against 3 versus 2 against 3.
	far, _ := WeightedKappa([]int{0, 1, 2, 3}, []int{3, 1, 2, 3})
	near, _ := WeightedKappa([]int{2, 1, 2, 3}, []int{3, 1, 2, 3})
	if !(far < near) {
		t.Errorf("far miss %v not below near miss %v", far, near)
	}
	if _, err := WeightedKappa([]int{2, 2}, []int{2, 2}); !errors.Is(err, ErrNoVariation) {
		t.Errorf("no variation: %v", err)
	}
	if _, err := WeightedKappa([]int{1}, []int{1, 2}); !errors.Is(err, ErrUnequalRatings) {
		t.Errorf("unequal: %v", err)
	}
}

// items2 builds items of markers' ranks: ranks[m][i] is marker m's rank of item i (-1: not
// marked).
func items2(markers []string, ranks [][]int) []item {
	var out []item
	for i := range ranks[0] {
		it := item{session: "s", criterion: "c", by: map[string]int{}}
		for m, name := range markers {
			if ranks[m][i] >= 0 {
				it.by[name] = ranks[m][i]
			}
		}
		out = append(out, it)
	}
	return out
}

// TestPairsNeverPooled: with three markers, each pair's κ is over the items that pair marked;
// a pair that agrees perfectly shows 1 whatever the third does. The interval holds the
// estimate and is the same on every run.
func TestPairsNeverPooled(t *testing.T) {
	markers := []string{"ana", "ben", "cy"}
	var a, b, c []int
	for i := range 40 {
		a = append(a, i%4)
		b = append(b, i%4)
		c = append(c, (i+i/10)%4)
	}
	items := items2(markers, [][]int{a, b, c})
	ab := pairFigures("ana", "ben", items, 7)
	ac := pairFigures("ana", "cy", items, 7)
	if ab.Items != 40 || *ab.Kappa != 1 || *ab.WeightedKappa != 1 {
		t.Errorf("ana–ben: %+v", ab)
	}
	if ac.Kappa == nil || *ac.Kappa >= 1 || ac.KappaCI == nil || ac.KappaCI.Low > *ac.Kappa || ac.KappaCI.High < *ac.Kappa {
		t.Errorf("ana–cy: κ %v, interval %+v", ac.Kappa, ac.KappaCI)
	}
	if again := pairFigures("ana", "cy", items, 7); *again.KappaCI != *ac.KappaCI {
		t.Errorf("interval not reproducible: %+v then %+v", ac.KappaCI, again.KappaCI)
	}
	f := figures(items, markers, 7)
	if f.Items != 40 || f.Alpha == nil || f.AlphaCI == nil || f.AlphaCI.Low > *f.Alpha || f.AlphaCI.High < *f.Alpha {
		t.Errorf("α over three markers: %+v", f)
	}
}

// TestAgreementWarnings: α over a single item is undefined (never 0.000), a small sample
// says so, and high agreement with a low κ is explained.
func TestAgreementWarnings(t *testing.T) {
	one := figures(items2([]string{"a", "b"}, [][]int{{2}, {1}}), []string{"a", "b"}, 1)
	if one.Alpha != nil || one.Undefined == "" {
		t.Errorf("α over one item: %+v", one)
	}
	// 19 of 20 items both give level 2: 95% agreement, κ about 0.
	a, b := make([]int, 20), make([]int, 20)
	for i := range a {
		a[i], b[i] = 2, 2
	}
	a[0] = 1
	items := items2([]string{"a", "b"}, [][]int{a, b})
	ag := &Agreement{Overall: figures(items, []string{"a", "b"}, 1), Pairs: []PairFigures{pairFigures("a", "b", items, 1)}}
	w := strings.Join(warnings(ag), "\n")
	if !strings.Contains(w, "small sample: 20 items") || !strings.Contains(w, "agree on 95% of items but κ is 0.00") || !strings.Contains(w, "prevalence") {
		t.Errorf("warnings:\n%s", w)
	}
}
