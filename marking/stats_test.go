package marking

import (
	"errors"
	"math"
	"testing"
)

// TestAgreementHandComputed checks the agreement figures against values computed by hand
// (the working is in each case's comment) and against Krippendorff's published example.
func TestAgreementHandComputed(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name string
		a, b []int
		// exact, κ, α nominal, α ordinal, α interval; NaN: undefined.
		exact, kappa, nominal, ordinal, interval float64
	}{
		// 3 of 4 agree. κ: p_o = 12/16, p_e = (1·1+1·2+2·1)/16 = 5/16 → 7/11.
		// α: coincidences o11=2, o22=2, o33=2, o23=o32=1; n1=2, n2=3, n3=3, n=8.
		// nominal: 1 − 7·2/(64−22) = 2/3. ordinal: δ²12=6.25, δ²13=30.25, δ²23=9;
		// 1 − 7·18/(2·(6·6.25+6·30.25+9·9)) = 1 − 126/600 = 0.79. interval: 1 − 7·2/78.
		{"one disagreement", []int{1, 2, 3, 3}, []int{1, 2, 3, 2}, 0.75, 7.0 / 11, 2.0 / 3, 0.79, 1 - 14.0/78},
		// Every item the same level from both: κ = α = 1.
		{"perfect", []int{1, 2, 3}, []int{1, 2, 3}, 1, 1, 1, 1, 1},
		// Swapped: p_o = 0, p_e = 1/2 → κ = −1. α nominal: o12=o21=2, n=4: 1 − 3·4/8 = −0.5.
		// ordinal: δ²12 = (4−2)² = 4: 1 − 3·16/(2·4·4) = −0.5. interval: 1 − 3·4/8 = −0.5.
		{"swapped", []int{1, 2}, []int{2, 1}, 0, -1, -0.5, -0.5, -0.5},
		// One level throughout: nothing to agree beyond chance.
		{"no variation", []int{2, 2, 2}, []int{2, 2, 2}, 1, nan, nan, nan, nan},
		// None (rank 0) against the lowest level, twice, and analysis twice.
		// κ: p_o = 2/4, p_e = (1·1 + 1·1 + 2·2)/16 = 6/16 → (8/16−6/16)/(10/16) = 0.2.
		// α: o01=o10=2, o22=4; n0=2, n1=2, n2=4, n=8. nominal: 1 − 7·4/(64−24) = 0.3.
		// ordinal: δ²01=(4−2)²=4, δ²02=(8−3)²=25, δ²12=(6−3)²=9; 1 − 7·16/(2·(16+200+72)) = 1 − 112/576.
		// interval: δ²01=1, δ²02=4, δ²12=1; 1 − 7·4/(2·(4+32+8)) = 1 − 28/88.
		{"none against lowest", []int{0, 1, 2, 2}, []int{1, 0, 2, 2}, 0.5, 0.2, 0.3, 1 - 112.0/576, 1 - 28.0/88},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			check := func(what string, got float64, err error, want float64) {
				t.Helper()
				if math.IsNaN(want) {
					if !errors.Is(err, ErrNoVariation) {
						t.Errorf("%s = %v, %v; want undefined (ErrNoVariation)", what, got, err)
					}
					return
				}
				if err != nil || math.Abs(got-want) > 1e-9 {
					t.Errorf("%s = %.6f, %v; want %.6f", what, got, err, want)
				}
			}
			ex, err := ExactAgreement(tc.a, tc.b)
			check("exact agreement", ex, err, tc.exact)
			k, err := CohenKappa(tc.a, tc.b)
			check("Cohen's κ", k, err, tc.kappa)
			units := make([][]int, len(tc.a))
			for i := range tc.a {
				units[i] = []int{tc.a[i], tc.b[i]}
			}
			for _, m := range []struct {
				metric Metric
				want   float64
			}{{MetricNominal, tc.nominal}, {MetricOrdinal, tc.ordinal}, {MetricInterval, tc.interval}} {
				a, err := KrippendorffAlpha(units, m.metric)
				check("α "+m.metric.String(), a, err, m.want)
			}
		})
	}
}

// TestKrippendorffPublishedExample is the example of Krippendorff, "Computing Krippendorff's
// Alpha-Reliability" (2011): four observers, twelve units, values missing. Published: α
// nominal 0.743, ordinal 0.815, interval 0.849.
func TestKrippendorffPublishedExample(t *testing.T) {
	const x = -1 // missing
	obs := [4][12]int{
		{1, 2, 3, 3, 2, 1, 4, 1, 2, x, x, x},
		{1, 2, 3, 3, 2, 2, 4, 1, 2, 5, x, 3},
		{x, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, x},
		{1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, x},
	}
	units := make([][]int, 12)
	for _, row := range obs {
		for u, v := range row {
			if v != x {
				units[u] = append(units[u], v)
			}
		}
	}
	for _, tc := range []struct {
		metric Metric
		want   float64
	}{{MetricNominal, 0.743}, {MetricOrdinal, 0.815}, {MetricInterval, 0.849}} {
		got, err := KrippendorffAlpha(units, tc.metric)
		if err != nil || math.Abs(got-tc.want) > 0.0005 {
			t.Errorf("α %s = %.4f, %v; published %.3f", tc.metric, got, err, tc.want)
		}
	}
}

func TestAgreementRefusals(t *testing.T) {
	if _, err := ExactAgreement([]int{1}, []int{1, 2}); !errors.Is(err, ErrUnequalRatings) {
		t.Errorf("unequal: %v", err)
	}
	if _, err := CohenKappa(nil, nil); !errors.Is(err, ErrTooFewRatings) {
		t.Errorf("empty: %v", err)
	}
	if _, err := KrippendorffAlpha([][]int{{1}, {2}}, MetricOrdinal); !errors.Is(err, ErrTooFewRatings) {
		t.Errorf("no pairs: %v", err)
	}
}
