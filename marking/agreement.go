package marking

import (
	"context"
	"errors"
	"slices"

	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/spec"
)

// Agreement is how far markers agree across an exam's sessions, per criterion and over all
// criteria. Exact agreement and Cohen's κ compare the first two markers (by name) of each
// item marked twice or more; Krippendorff's α (ordinal) takes every marker's level.
type Agreement struct {
	ExamID   string             `json:"examId"`
	Metric   Metric             `json:"alphaMetric"`
	Overall  AgreementFigures   `json:"overall"`
	Criteria []CriterionFigures `json:"criteria"`
	Markers  []string           `json:"markers"`
}

// CriterionFigures are the figures of one criterion.
type CriterionFigures struct {
	Criterion string `json:"criterion"`
	AgreementFigures
}

// AgreementFigures are the figures over a set of items. A figure is nil when it is undefined
// (too few items marked twice, or no variation in the levels); Undefined says why.
type AgreementFigures struct {
	Items     int      `json:"items"` // items marked by two or more markers
	Exact     *float64 `json:"exactAgreement"`
	Kappa     *float64 `json:"cohensKappa"`
	Alpha     *float64 `json:"krippendorffsAlpha"`
	Undefined string   `json:"undefined,omitempty"`
}

// item is one criterion of one session with every marker's rank, markers in name order.
type item struct {
	criterion string
	ranks     []int
}

// ExamAgreement computes the agreement figures of an exam's marks in the store.
func ExamAgreement(ctx context.Context, st *sessions.Store, examID string) (*Agreement, error) {
	marks, err := st.ExamMarks(ctx, examID) // by session, criterion, marker
	if err != nil {
		return nil, err
	}
	schemes := map[string]*spec.CompiledMarking{}
	var items []item
	var order []string
	markers := map[string]bool{}
	for i := 0; i < len(marks); {
		j := i
		for j < len(marks) && marks[j].SessionID == marks[i].SessionID && marks[j].Criterion == marks[i].Criterion {
			j++
		}
		m, ok := schemes[marks[i].SessionID]
		if !ok {
			sess, err := st.Get(ctx, marks[i].SessionID)
			if err != nil {
				return nil, err
			}
			exam, err := examOf(sess)
			if err != nil {
				return nil, err
			}
			m = exam.Marking
			schemes[marks[i].SessionID] = m
		}
		if c := m.Criterion(marks[i].Criterion); c != nil {
			it := item{criterion: c.ID}
			for _, mk := range marks[i:j] {
				markers[mk.Marker] = true
				if r := c.Rank(mk.Level); r >= 0 {
					it.ranks = append(it.ranks, r)
				}
			}
			items = append(items, it)
			if !slices.Contains(order, c.ID) {
				order = append(order, c.ID)
			}
		}
		i = j
	}
	// Criteria in the scheme's order (the marks come by name): the first marked session's.
	if len(marks) > 0 {
		m := schemes[marks[0].SessionID]
		slices.SortStableFunc(order, func(x, y string) int { return schemeIndex(m, x) - schemeIndex(m, y) })
	}
	a := &Agreement{ExamID: examID, Metric: MetricOrdinal, Criteria: []CriterionFigures{}}
	a.Overall = figures(items)
	for _, c := range order {
		var sub []item
		for _, it := range items {
			if it.criterion == c {
				sub = append(sub, it)
			}
		}
		a.Criteria = append(a.Criteria, CriterionFigures{Criterion: c, AgreementFigures: figures(sub)})
	}
	a.Markers = slices.Sorted(func(yield func(string) bool) {
		for m := range markers {
			if !yield(m) {
				return
			}
		}
	})
	return a, nil
}

// figures computes the figures over items; over several criteria, ranks are compared within
// each item only, which is what agreement on a level means.
func figures(items []item) AgreementFigures {
	var f AgreementFigures
	var a, b []int
	var units [][]int
	for _, it := range items {
		if len(it.ranks) < 2 {
			continue
		}
		f.Items++
		a, b = append(a, it.ranks[0]), append(b, it.ranks[1])
		units = append(units, it.ranks)
	}
	note := func(err error) {
		if f.Undefined == "" && err != nil {
			f.Undefined = err.Error()
		}
	}
	if ex, err := ExactAgreement(a, b); err == nil {
		f.Exact = &ex
	} else {
		note(err)
	}
	if k, err := CohenKappa(a, b); err == nil {
		f.Kappa = &k
	} else if !errors.Is(err, ErrTooFewRatings) {
		note(err)
	}
	if al, err := KrippendorffAlpha(units, MetricOrdinal); err == nil {
		f.Alpha = &al
	} else if !errors.Is(err, ErrTooFewRatings) {
		note(err)
	}
	return f
}

func schemeIndex(m *spec.CompiledMarking, id string) int {
	for i, c := range m.Criteria {
		if c.ID == id {
			return i
		}
	}
	return len(m.Criteria)
}
