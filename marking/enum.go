package marking

import "fmt"

// Metric is the level of measurement Krippendorff's α treats levels at. Marking levels are
// ordered but not evenly spaced (description < analysis < evaluation), so Ordinal is the one
// examtui reports; the others are there for comparison and for the tests' published values.
type Metric int

// Metrics.
const (
	MetricUnknown Metric = iota
	MetricNominal
	MetricOrdinal
	MetricInterval
)

var metricNames = map[Metric]string{MetricNominal: "nominal", MetricOrdinal: "ordinal", MetricInterval: "interval"}

func (m Metric) String() string {
	if s, ok := metricNames[m]; ok {
		return s
	}
	return fmt.Sprintf("Metric(%d)", int(m))
}

// ParseMetric parses a metric name; unknown names give MetricUnknown and an error.
func ParseMetric(s string) (Metric, error) {
	for m, name := range metricNames {
		if name == s {
			return m, nil
		}
	}
	return MetricUnknown, fmt.Errorf("unknown metric %q (nominal, ordinal, interval)", s)
}

// MarshalText writes the metric as its name.
func (m Metric) MarshalText() ([]byte, error) { return []byte(m.String()), nil }
