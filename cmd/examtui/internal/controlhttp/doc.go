// Package controlhttp serves examtui's runtime controller over HTTP/JSON for Pipecat bots
// (`examtui controller`): the design's runtime controller webhook. A bot creates a session,
// then submits each candidate turn with the report_observation arguments its LLM sent; the
// controller decides (the same controller, options, store, journal and examiner failover as
// every other exam path, wired by cmd/examtui/internal/app) and the answer says what the candidate must
// hear, which node is current, the transitions taken and whether the exam ended. The bot holds
// no decision logic: decisions are the controller's by construction.
//
// The API (docs/outputs.md, "Pipecat"):
//
//	POST   /v1/sessions                {candidate?, model?}            -> Update (201)
//	POST   /v1/sessions/{id}/turns     {text, confidence?, durationMs?, observation?} -> Update
//	GET    /v1/sessions/{id}                                           -> Update (lines spoken since the last answer)
//	DELETE /v1/sessions/{id}           the bot left: the session closes (resumable if not ended)
//
// Every request carries "Authorization: Bearer TOKEN" when the server has a token. Errors
// are JSON: {"error": "...", "code": "..."} with a 4xx or 5xx status.
package controlhttp
