package examgraph

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/spec"
)

// Format is an output format of the graph.
type Format int

// Output formats.
const (
	FormatText    Format = iota + 1 // a readable tree, the default
	FormatMermaid                   // a Mermaid flowchart
	FormatDOT                       // Graphviz DOT
)

// Formats lists the formats in the order the command line documents them.
var Formats = []Format{FormatText, FormatMermaid, FormatDOT}

func (f Format) String() string {
	switch f {
	case FormatText:
		return "text"
	case FormatMermaid:
		return "mermaid"
	case FormatDOT:
		return "dot"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// ParseFormat reads a format name.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if f.String() == s {
			return f, nil
		}
	}
	return 0, fmt.Errorf("%w %q (known: text, mermaid, dot)", ErrFormat, s)
}

// Render returns the graph in the given format. Output is deterministic.
func (g *Graph) Render(f Format) ([]byte, error) {
	var b bytes.Buffer
	var err error
	switch f {
	case FormatText:
		err = g.WriteText(&b)
	case FormatMermaid:
		err = g.WriteMermaid(&b)
	case FormatDOT:
		err = g.WriteDOT(&b)
	default:
		return nil, fmt.Errorf("%w %v", ErrFormat, f)
	}
	return b.Bytes(), err
}

// summary is a node's one-line description: kind, time budget and evidence need.
func (n *Node) summary() string {
	parts := []string{n.Kind.String()}
	if n.TimeBudgetSec > 0 {
		parts = append(parts, fmt.Sprintf("%ds", n.TimeBudgetSec))
	}
	if n.Kind == spec.KindAssessment && len(n.Signals) > 0 {
		parts = append(parts, fmt.Sprintf("needs %d of %d signals", n.Required, len(n.Signals)))
	}
	if len(n.Variants) > 0 {
		// The draw is the runtime's: the graph says which versions a candidate may get.
		parts = append(parts, fmt.Sprintf("%s draw of %s", n.Draw, strings.Join(n.Variants, ", ")))
	}
	return strings.Join(parts, " · ")
}

// WriteText writes the graph as a tree: each node, then each transition leaving it with the
// reasons that take it and what fires them. "[transitions]" marks a reason the author named;
// the others fall back to the node's next.
func (g *Graph) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s · %s\n", g.ExamID, textsafe.Line(g.Title))
	fmt.Fprintf(&b, "entry %s", g.Entry)
	if g.TotalTimeBudgetSec > 0 {
		fmt.Fprintf(&b, " · exam time budget %ds (the exam expires when it runs out)", g.TotalTimeBudgetSec)
	}
	b.WriteString("\n")
	reasonW := 0
	for _, r := range spec.Reasons {
		reasonW = max(reasonW, len(r))
	}
	for _, n := range g.Nodes {
		fmt.Fprintf(&b, "\n%s  (%s)\n", n.ID, n.summary())
		if n.Kind == spec.KindEnd {
			b.WriteString("└─■ the exam completes\n")
			continue
		}
		for i, e := range n.Edges {
			branch, cont := "├─▶ ", "│     "
			if i == len(n.Edges)-1 {
				branch, cont = "└─▶ ", "      "
			}
			b.WriteString(branch + e.To + "\n")
			for _, t := range e.Triggers {
				tag := ""
				if t.Explicit {
					tag = "  [transitions]"
				}
				fmt.Fprintf(&b, "%s%-*s  %-9s  %s%s\n", cont, reasonW, t.Reason, t.Kind, t.When, tag)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mermaidText escapes text for a quoted Mermaid label: quotes, angle brackets and pipes become
// entity codes, so no author text can close the label or inject markup.
func mermaidText(s string) string { return mermaidEscaper.Replace(textsafe.Line(s)) }

// The escapers are built once: a strings.Replacer is costly to build and safe to share.
var (
	mermaidEscaper = strings.NewReplacer(`"`, "#quot;", "<", "#lt;", ">", "#gt;", "|", "#124;", "`", "#96;")
	dotEscaper     = strings.NewReplacer(`\`, `\\`, `"`, `\"`)
)

// WriteMermaid writes a Mermaid flowchart. Node ids are n<index> (an author's node id such as
// "end" is a Mermaid keyword); the labels carry the real ids.
func (g *Graph) WriteMermaid(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%%%% %s: %s\n", g.ExamID, strings.ReplaceAll(textsafe.Line(g.Title), "%%", "%"))
	b.WriteString("flowchart TD\n")
	id := map[string]string{}
	for _, n := range g.Nodes {
		id[n.ID] = fmt.Sprintf("n%d", n.Index)
	}
	for _, n := range g.Nodes {
		label := mermaidText(n.ID) + "<br/>" + mermaidText(n.summary())
		open, closing := "[\"", "\"]"
		switch n.Kind {
		case spec.KindScaffolding:
			open, closing = "(\"", "\")"
		case spec.KindEnd:
			open, closing = "([\"", "\"])"
		}
		fmt.Fprintf(&b, "  %s%s%s%s\n", id[n.ID], open, label, closing)
	}
	for _, n := range g.Nodes {
		for _, e := range n.Edges {
			lines := e.labels(mermaidText)
			fmt.Fprintf(&b, "  %s -->|\"%s\"| %s\n", id[e.From], strings.Join(lines, "<br/>"), id[e.To])
		}
	}
	if entry, ok := id[g.Entry]; ok {
		b.WriteString("  classDef entry stroke-width:3px\n")
		fmt.Fprintf(&b, "  class %s entry\n", entry)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// labels renders each trigger of e as "reason: when", escaped by esc for the format.
func (e Edge) labels(esc func(string) string) []string {
	lines := make([]string, len(e.Triggers))
	for i, t := range e.Triggers {
		lines[i] = esc(t.Reason.String() + ": " + t.When)
	}
	return lines
}

// dotString quotes text as a DOT string on one line (line breaks become spaces).
func dotString(s string) string {
	return `"` + dotEscaper.Replace(textsafe.Line(s)) + `"`
}

// WriteDOT writes a Graphviz digraph.
func (g *Graph) WriteDOT(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "digraph %s {\n", dotString(g.ExamID))
	fmt.Fprintf(&b, "  label=%s;\n  labelloc=t;\n", dotString(g.ExamID+" · "+g.Title))
	b.WriteString("  node [shape=box, fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=10];\n")
	for _, n := range g.Nodes {
		attrs := ""
		switch n.Kind {
		case spec.KindScaffolding:
			attrs = ", style=rounded"
		case spec.KindEnd:
			attrs = ", shape=doubleoctagon"
		}
		if n.ID == g.Entry {
			attrs += ", penwidth=2"
		}
		label := strings.TrimSuffix(dotString(n.ID), `"`) + `\n` + strings.TrimPrefix(dotString(n.summary()), `"`)
		fmt.Fprintf(&b, "  %s [label=%s%s];\n", dotString(n.ID), label, attrs)
	}
	for _, n := range g.Nodes {
		for _, e := range n.Edges {
			lines := e.labels(func(s string) string { q := dotString(s); return q[1 : len(q)-1] })
			fmt.Fprintf(&b, "  %s -> %s [label=\"%s\\l\"];\n", dotString(e.From), dotString(e.To), strings.Join(lines, `\l`))
		}
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}
