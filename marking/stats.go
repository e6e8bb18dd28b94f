package marking

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
)

// ExactAgreement is the share of items two markers gave the same level (a and b: ranks,
// item by item).
func ExactAgreement(a, b []int) (float64, error) {
	if len(a) != len(b) {
		return 0, ErrUnequalRatings
	}
	if len(a) == 0 {
		return 0, ErrTooFewRatings
	}
	same := 0
	for i := range a {
		if a[i] == b[i] {
			same++
		}
	}
	return float64(same) / float64(len(a)), nil
}

// CohenKappa is Cohen's unweighted κ for two markers' levels of the same items: agreement
// corrected for the agreement their own level frequencies would give by chance. It is
// undefined (ErrNoVariation) when chance agreement is total, both giving one level throughout.
func CohenKappa(a, b []int) (float64, error) {
	po, err := ExactAgreement(a, b)
	if err != nil {
		return 0, err
	}
	n := float64(len(a))
	na, nb := map[int]float64{}, map[int]float64{}
	for i := range a {
		na[a[i]]++
		nb[b[i]]++
	}
	pe := 0.0
	for k, c := range na {
		pe += (c / n) * (nb[k] / n)
	}
	if pe == 1 {
		return 0, ErrNoVariation
	}
	return (po - pe) / (1 - pe), nil
}

// KrippendorffAlpha is Krippendorff's α over units (items) each rated by any number of
// markers (units[i]: the ranks given to item i; missing ratings are simply absent), at the
// given level of measurement. Units with fewer than two ratings carry no pairs and are left
// out. It is computed from the coincidence matrix: α = 1 − (n−1)·Σ o_ck δ²_ck / Σ n_c n_k δ²_ck.
func KrippendorffAlpha(units [][]int, metric Metric) (float64, error) {
	o := map[[2]int]float64{} // coincidences
	for _, u := range units {
		m := len(u)
		if m < 2 {
			continue
		}
		for i := range u {
			for j := range u {
				if i != j {
					o[[2]int{u[i], u[j]}] += 1 / float64(m-1)
				}
			}
		}
	}
	nc := map[int]float64{}
	n := 0.0
	for ck, v := range o {
		nc[ck[0]] += v
		n += v
	}
	if n < 2 {
		return 0, ErrTooFewRatings
	}
	values := slices.Sorted(maps.Keys(nc))
	delta, err := deltaFunc(metric, values, nc)
	if err != nil {
		return 0, err
	}
	do := 0.0
	for ck, v := range o {
		do += v * delta(ck[0], ck[1])
	}
	de := 0.0
	for _, c := range values {
		for _, k := range values {
			de += nc[c] * nc[k] * delta(c, k)
		}
	}
	if de == 0 {
		return 0, ErrNoVariation
	}
	return 1 - (n-1)*do/de, nil
}

// deltaFunc returns the squared difference δ² between two values at the metric.
func deltaFunc(metric Metric, values []int, nc map[int]float64) (func(c, k int) float64, error) {
	switch metric {
	case MetricNominal:
		return func(c, k int) float64 {
			if c == k {
				return 0
			}
			return 1
		}, nil
	case MetricInterval:
		return func(c, k int) float64 { d := float64(c - k); return d * d }, nil
	case MetricOrdinal:
		// δ²(c,k) = (Σ_{g=c..k} n_g − (n_c+n_k)/2)²: the distance between two levels is how
		// many ratings lie between them, not the difference of their ranks.
		pos := map[int]int{}
		cum := make([]float64, len(values)+1)
		for i, v := range values {
			pos[v] = i
			cum[i+1] = cum[i] + nc[v]
		}
		return func(c, k int) float64 {
			i, j := pos[c], pos[k]
			if i > j {
				i, j = j, i
			}
			d := cum[j+1] - cum[i] - (nc[c]+nc[k])/2
			return d * d
		}, nil
	}
	return nil, fmt.Errorf("krippendorff's alpha: %v metric", metric)
}

// WeightedKappa is Cohen's κ with quadratic weights for two markers' ranks of the same items:
// a disagreement of d levels counts d², so near misses weigh less than far ones (the usual
// figure for ordered levels). κ_w = 1 − Σ w·O / Σ w·E over the levels either marker used.
func WeightedKappa(a, b []int) (float64, error) {
	if len(a) != len(b) {
		return 0, ErrUnequalRatings
	}
	if len(a) == 0 {
		return 0, ErrTooFewRatings
	}
	n := float64(len(a))
	na, nb := map[int]float64{}, map[int]float64{}
	obs := 0.0
	for i := range a {
		na[a[i]]++
		nb[b[i]]++
		d := float64(a[i] - b[i])
		obs += d * d
	}
	exp := 0.0
	for i, ci := range na {
		for j, cj := range nb {
			d := float64(i - j)
			exp += ci * cj / n * d * d
		}
	}
	if exp == 0 {
		return 0, ErrNoVariation
	}
	return 1 - obs/exp, nil
}

// Interval is a 95% confidence interval.
type Interval struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// bootstrapReps is how many resamples an interval takes.
const bootstrapReps = 1000

// bootstrap is the 95% percentile bootstrap interval of stat over n items resampled with
// replacement, from a generator seeded by seed (so a report is reproducible). stat gets the
// resampled indices; a resample where stat is undefined is left out, and with fewer than half
// defined there is no interval.
func bootstrap(n int, seed uint64, stat func(idx []int) (float64, error)) *Interval {
	if n < 2 {
		return nil
	}
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	idx := make([]int, n)
	var vals []float64
	for range bootstrapReps {
		for i := range idx {
			idx[i] = r.IntN(n)
		}
		if v, err := stat(idx); err == nil && !math.IsNaN(v) {
			vals = append(vals, v)
		}
	}
	if len(vals) < bootstrapReps/2 {
		return nil
	}
	slices.Sort(vals)
	at := func(q float64) float64 { return vals[int(math.Round(q*float64(len(vals)-1)))] }
	return &Interval{Low: at(0.025), High: at(0.975)}
}
