// Package runtime is the exam runtime: the Controller that runs one exam session, the event
// envelope and payloads it emits, and the Examiner interface the offline and LLM examiners
// implement.
//
// The examiner observes; the controller decides. Each candidate turn goes through one
// decision order (docs/architecture.md): validate the report_observation arguments (ParseObservation),
// dispatch a candidate command (from the examiner or the rule-based ClassifyCommand safety
// net), validate the spoken text through the output filters, record evidence in the ledger,
// apply the guardrails, then act — transition, follow up or continue. Time (Tick), examiner
// controls (Control) and admin instructions (Admin) enter through the same controller and the
// same lock, never around it. Every event leaves through the Sink in seq order, gap-free.
package runtime
