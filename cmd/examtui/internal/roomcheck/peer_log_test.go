package roomcheck

import (
	"strings"
	"testing"
)

// TestPeerTurnDecisions reads LiveKit Agents' end-of-turn predictions from its debug log (the
// lines are its own, from a benchmark run): a probability under the threshold is a turn held to
// the max delay; other lines, partial lines and lines without a probability count for nothing.
func TestPeerTurnDecisions(t *testing.T) {
	const (
		held   = `{"level":20,"time":1796557773648,"pid":21665,"hostname":"vm","jobID":"AJ_pNwkwcyg7y23","room_id":"RM_kWBmoDoqq7FE","endOfTurnProbability":0.2722232937812805,"unlikelyThreshold":0.36,"endpointingDelay":2500,"language":"en","trigger":"stt","fromCache":true,"msg":"eot prediction"}`
		likely = `{"level":20,"time":1796558053218,"pid":24844,"hostname":"vm","jobID":"AJ_3RyfLxNYJVvN","room_id":"RM_8FQPCMGpsta9","endOfTurnProbability":0.6479849815368652,"unlikelyThreshold":0.36,"endpointingDelay":300,"language":"en","trigger":"stt","fromCache":true,"msg":"eot prediction"}`
		other  = `{"level":20,"time":1796557773565,"pid":21665,"hostname":"vm","msg":"skipping EOU detection"}`
	)
	for _, tc := range []struct {
		name        string
		lines       []string
		turns, held int
	}{
		{"none", []string{other}, 0, 0},
		{"one held", []string{other, held}, 1, 1},
		{"one likely", []string{likely, other}, 1, 0},
		{"mixed", []string{held, likely, likely, held, likely}, 5, 2},
		{"no threshold: not held", []string{`{"msg":"eot prediction","endOfTurnProbability":0.1}`}, 1, 0},
		{"no probability", []string{`{"msg":"eot prediction","unlikelyThreshold":0.36}`}, 0, 0},
		{"cut line", []string{held[:80], likely}, 1, 0},
		{"not JSON", []string{"eot prediction 0.1 < 0.36", likely}, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			turns, h := peerTurnDecisions([]byte(strings.Join(tc.lines, "\n") + "\n"))
			if turns != tc.turns || h != tc.held {
				t.Errorf("got %d turns, %d held; want %d, %d", turns, h, tc.turns, tc.held)
			}
		})
	}
}
