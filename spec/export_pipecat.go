package spec

import (
	"fmt"
	"slices"
)

// The pipecat-flows export: the compiled exam as Pipecat Flows node configs
// (pipecat-adapter §4) plus the metadata a Runtime Controller needs to drive them. Transitions,
// budgets and policies live only under "metadata": a FlowManager hands the LLM role_message,
// task_messages and functions, never the metadata.

// summaryPrompt asks for the summary that replaces the history on reset_with_summary.
const summaryPrompt = "Summarise the conversation so far in a few sentences: what was asked and " +
	"what the candidate said, without judging the answers."

// The document's own identity and version. PipecatFlowsFormatVersion changes only when a
// field is removed or changes meaning (fields are added without a change); the Python module
// contrib/pipecat/examtui_flows.py refuses versions it does not know.
const (
	PipecatFlowsFormat        = "examtui-pipecat-flows"
	PipecatFlowsFormatVersion = 1
	// PipecatFlowsTarget is the pipecat-ai-flows API the document is built for (through
	// contrib/pipecat/examtui_flows.py, which makes its NodeConfigs).
	PipecatFlowsTarget = "pipecat-ai-flows>=1.0,<2"
)

// PipecatFlow is the document ExportPipecatFlows writes.
type PipecatFlow struct {
	Format                  string                 `json:"format"`
	FormatVersion           int                    `json:"formatVersion"`
	Target                  string                 `json:"target"`
	AdapterVersion          string                 `json:"adapterVersion"`
	IRVersion               string                 `json:"irVersion"`
	InitialNode             string                 `json:"initial_node"`
	Nodes                   map[string]PipecatNode `json:"nodes"`
	OutputValidationFilters []ResolvedFilter       `json:"outputValidationFilters"`
	Metadata                PipecatExamMetadata    `json:"metadata"`
}

// PipecatNode is the data of one Pipecat Flows NodeConfig. Functions use FlowsFunctionSchema's
// fields; contrib/pipecat/examtui_flows.py builds the 1.x objects (FlowsFunctionSchema with its
// handler, ContextStrategyConfig) and leaves transitions and metadata out of the NodeConfig.
type PipecatNode struct {
	Name               string            `json:"name"`
	RoleMessage        string            `json:"role_message"`
	TaskMessages       []Message         `json:"task_messages"`
	Functions          []PipecatFunction `json:"functions"`
	PreActions         []PipecatAction   `json:"pre_actions,omitempty"`
	PostActions        []PipecatAction   `json:"post_actions,omitempty"`
	RespondImmediately bool              `json:"respond_immediately"`
	ContextStrategy    PipecatContext    `json:"context_strategy"`
	// Transitions is the successor for every transition reason, resolved (an author's
	// per-reason transition, else next); empty on end nodes. The report_observation handler
	// returns the node it names as its next node.
	Transitions map[Reason]string   `json:"transitions"`
	Metadata    PipecatNodeMetadata `json:"metadata"`
	// Variants are the node's versions of its question by id: the controller draws one when
	// the node is entered and names it in its answer ("variant"); the bot's model then gets
	// that variant's task_messages instead of the node's.
	Variants map[string]PipecatVariant `json:"variants,omitempty"`
}

// PipecatVariant is what a drawn variant changes in a node: the model's task messages, and
// (in metadata, for the controller's side only) the variant's texts.
type PipecatVariant struct {
	TaskMessages []Message       `json:"task_messages"`
	Metadata     CompiledVariant `json:"metadata"`
}

// PipecatFunction is a FlowsFunctionSchema without its handler.
type PipecatFunction struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Properties  map[string]any `json:"properties"`
	Required    []string       `json:"required"`
}

// PipecatAction is a Pipecat Flows action config: tts_say, end_conversation, or a function
// action whose Handler names one of contrib/pipecat/examtui_flows.py's handlers (JSON cannot
// hold the callable; the module puts its own in place of the name).
type PipecatAction struct {
	Type    string `json:"type"`
	Text    string `json:"text,omitempty"`
	Handler string `json:"handler,omitempty"`
}

// The node actions' handlers (docs/outputs.md, "Node actions"): node_entered runs first when
// the bot enters a node; finalize_node when the exam leaves it (the module puts a node's
// post_actions on the node config that leaves it, or before end_conversation at the end).
const (
	PipecatActionFunction    = "function"
	PipecatHandlerNodeEnter  = "examtui.node_entered"
	PipecatHandlerNodeFinish = "examtui.finalize_node"
)

// PipecatContext is a ContextStrategyConfig.
type PipecatContext struct {
	Strategy      ContextStrategy `json:"strategy"`
	SummaryPrompt string          `json:"summary_prompt,omitempty"`
}

// PipecatNodeMetadata is the controller-only part of a node, verbatim.
type PipecatNodeMetadata struct {
	NodeID string   `json:"nodeId"`
	Index  int      `json:"index"`
	Kind   NodeKind `json:"kind"`
	NodeController
}

// PipecatExamMetadata is the exam-wide controller data.
type PipecatExamMetadata struct {
	SpecVersion        string           `json:"specVersion"`
	ExamID             string           `json:"examId"`
	Title              string           `json:"title"`
	Language           string           `json:"language"`
	SourceSHA256       string           `json:"sourceSha256"`
	TotalTimeBudgetSec int              `json:"totalTimeBudgetSec,omitempty"`
	EntryNode          string           `json:"entryNode"`
	NodeOrder          []string         `json:"nodeOrder"`
	Policies           ResolvedPolicies `json:"policies"`
	Personas           []Persona        `json:"personas"`
	Evidence           []EvidenceDef    `json:"evidence"`
	Beats              []Beat           `json:"beats,omitempty"`
	TransitionReasons  []Reason         `json:"transitionReasons"`
}

// PipecatFlows converts a compiled exam to its Pipecat Flows form.
func PipecatFlows(e *Exam) (*PipecatFlow, error) {
	if e == nil {
		return nil, ErrNilExam
	}
	f := &PipecatFlow{
		Format: PipecatFlowsFormat, FormatVersion: PipecatFlowsFormatVersion, Target: PipecatFlowsTarget,
		AdapterVersion:          e.AdapterVersion,
		IRVersion:               e.IRVersion,
		InitialNode:             e.EntryNode,
		Nodes:                   make(map[string]PipecatNode, len(e.Nodes)),
		OutputValidationFilters: e.Filters,
		Metadata: PipecatExamMetadata{
			SpecVersion: e.SpecVersion, ExamID: e.ID, Title: e.Title, Language: e.Language,
			SourceSHA256: e.SourceSHA256, TotalTimeBudgetSec: e.TotalTimeBudgetSec,
			EntryNode: e.EntryNode, Policies: e.Policies, Personas: e.Personas,
			Evidence: e.Evidence, Beats: e.Beats, TransitionReasons: Reasons,
		},
	}
	for _, n := range e.Nodes {
		f.Metadata.NodeOrder = append(f.Metadata.NodeOrder, n.NodeID)
		f.Nodes[n.NodeID] = pipecatNode(n)
	}
	return f, nil
}

func pipecatNode(n CompiledNode) PipecatNode {
	pn := PipecatNode{
		Name:         n.NodeID,
		RoleMessage:  n.LLM.RoleMessage,
		TaskMessages: n.LLM.TaskMessages,
		// The node speaks its intro and opening question verbatim (exam-spec "Node
		// semantics"), then the LLM waits for the candidate.
		RespondImmediately: false,
		ContextStrategy:    PipecatContext{Strategy: n.LLM.ContextStrategy},
		Metadata:           PipecatNodeMetadata{NodeID: n.NodeID, Index: n.Index, Kind: n.Kind, NodeController: n.Controller},
		Transitions:        map[Reason]string{},
	}
	if n.Kind != KindEnd {
		for _, r := range Reasons {
			if to := n.Controller.Transitions[r]; to != "" {
				pn.Transitions[r] = to
			} else if n.Controller.Next != "" {
				pn.Transitions[r] = n.Controller.Next
			}
		}
	}
	if n.LLM.ContextStrategy == ContextResetWithSummary {
		pn.ContextStrategy.SummaryPrompt = summaryPrompt
	}
	for _, fn := range n.LLM.Functions {
		pf := PipecatFunction{Name: fn.Name, Description: fn.Description, Properties: map[string]any{}}
		if props, ok := fn.Parameters["properties"].(map[string]any); ok {
			pf.Properties = props
		}
		switch req := fn.Parameters["required"].(type) {
		case []any:
			for _, r := range req {
				if s, ok := r.(string); ok {
					pf.Required = append(pf.Required, s)
				}
			}
		case []string:
			pf.Required = append(pf.Required, req...)
		}
		pn.Functions = append(pn.Functions, pf)
	}
	pn.PreActions = append(pn.PreActions, PipecatAction{Type: PipecatActionFunction, Handler: PipecatHandlerNodeEnter})
	pn.PostActions = append(pn.PostActions, PipecatAction{Type: PipecatActionFunction, Handler: PipecatHandlerNodeFinish})
	if t := n.Controller.ScenarioIntro; t != "" {
		pn.PreActions = append(pn.PreActions, PipecatAction{Type: "tts_say", Text: t})
	}
	if t := n.Controller.ConversationPrompt; t != "" {
		pn.PreActions = append(pn.PreActions, PipecatAction{Type: "tts_say", Text: t})
	}
	if n.Kind == KindEnd {
		pn.PreActions = append(pn.PreActions, PipecatAction{Type: "end_conversation"})
	}
	if len(n.Variants) > 0 {
		pn.Variants = make(map[string]PipecatVariant, len(n.Variants))
		for _, v := range n.Variants {
			meta := v
			meta.TaskMessages = nil
			pn.Variants[v.ID] = PipecatVariant{TaskMessages: v.TaskMessages, Metadata: meta}
		}
	}
	return pn
}

// ExportPipecatFlows renders the exam as Pipecat Flows JSON (indented, trailing newline).
func ExportPipecatFlows(e *Exam) ([]byte, error) {
	f, err := PipecatFlows(e)
	if err != nil {
		return nil, err
	}
	return marshalIndent(f)
}

// Target is an export format.
type Target string

// Export targets.
const (
	TargetIR           Target = "ir"
	TargetPipecatFlows Target = "pipecat-flows"
)

// Targets lists the export targets.
var Targets = []Target{TargetIR, TargetPipecatFlows}

func (t Target) String() string { return string(t) }

// Valid reports whether t is a known target.
func (t Target) Valid() bool { return slices.Contains(Targets, t) }

// Export renders the exam in the given target format.
func Export(e *Exam, t Target) ([]byte, error) {
	switch t {
	case TargetIR:
		return ExportIR(e)
	case TargetPipecatFlows:
		return ExportPipecatFlows(e)
	}
	return nil, fmt.Errorf("%w %q (known: ir, pipecat-flows)", ErrUnknownTarget, string(t))
}
