package headless

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteCoverageText writes each spec's coverage: the total, a line per kind, and every
// uncovered item by name with where the spec defines it.
func WriteCoverageText(w io.Writer, specs []*Coverage) error {
	var b strings.Builder
	for i, c := range specs {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "COVERAGE %s (%s) from %s: %d/%d items, %.1f%%\n", c.ExamID, c.Spec, plural(len(c.Scripts), "script"), c.Covered, c.Total, c.Percent)
		for k := range c.Kinds {
			kc := &c.Kinds[k]
			fmt.Fprintf(&b, "  %s\n", kc.summaryLine())
			for _, it := range c.Uncovered(kc.Kind) {
				at := it.Where
				if at == "" {
					at = "(not in the spec: " + defaultWhere(kc.Kind) + ")"
				}
				fmt.Fprintf(&b, "      - %s  %s\n", it.Name, at)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// defaultWhere says why an item has no position.
func defaultWhere(k CoverKind) string {
	switch k {
	case CoverFilters:
		return "a default filter"
	case CoverCommands:
		return "every exam accepts it"
	case CoverGuardrails:
		return "built in"
	}
	return "a default"
}

// coverageFile is the JSON document --cover-out writes.
type coverageFile struct {
	Specs []*Coverage `json:"specs"`
}

// WriteCoverageJSON writes the coverage of every spec as one JSON document.
func WriteCoverageJSON(w io.Writer, specs []*Coverage) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(coverageFile{Specs: specs})
}

// WriteCoverageMarkdown writes the coverage as Markdown: a table per spec, then the uncovered
// items with their spec positions.
func WriteCoverageMarkdown(w io.Writer, specs []*Coverage) error {
	var b strings.Builder
	b.WriteString("# Exam coverage\n")
	for _, c := range specs {
		fmt.Fprintf(&b, "\n## %s (`%s`)\n\n", mdEscape(c.ExamID), c.Spec)
		fmt.Fprintf(&b, "%s: %s. Total **%.1f%%** (%d of %d items).\n\n", plural(len(c.Scripts), "script"), mdCodeList(c.Scripts), c.Percent, c.Covered, c.Total)
		b.WriteString("| kind | covered | total | % |\n|---|---:|---:|---:|\n")
		for _, kc := range c.Kinds {
			fmt.Fprintf(&b, "| %s | %d | %d | %.1f |\n", kc.Kind, kc.Covered, kc.Total, kc.Percent)
		}
		first := true
		for _, kc := range c.Kinds {
			un := c.Uncovered(kc.Kind)
			if len(un) == 0 {
				continue
			}
			if first {
				b.WriteString("\n### Uncovered\n")
				first = false
			}
			fmt.Fprintf(&b, "\n**%s**\n\n", kc.Kind)
			for _, it := range un {
				at := it.Where
				if at == "" {
					at = defaultWhere(kc.Kind)
				} else {
					at = "`" + at + "`"
				}
				fmt.Fprintf(&b, "- %s — %s\n", mdEscape(it.Name), at)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdCodeList(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "`" + strings.ReplaceAll(n, "`", "'") + "`"
	}
	return strings.Join(out, ", ")
}

// mdEscape keeps spec text from becoming Markdown markup.
func mdEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "|", `\|`, "<", "&lt;", "#", `\#`, "[", `\[`).Replace(s)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
