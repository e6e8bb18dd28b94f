package usage

import (
	"fmt"
	"math"
	"strings"
)

// Price is one model's price, in the price table's currency (OpenAI's list prices are US
// dollars). A language model is priced per million prompt and completion tokens, a recognition
// model per minute of audio sent to it, a voice per million characters sent to it.
type Price struct {
	PromptPerMTok     *float64 `yaml:"promptPerMTok" json:"promptPerMTok,omitempty"`
	CompletionPerMTok *float64 `yaml:"completionPerMTok" json:"completionPerMTok,omitempty"`
	PerMinute         *float64 `yaml:"perMinute" json:"perMinute,omitempty"`
	PerMChars         *float64 `yaml:"perMChars" json:"perMChars,omitempty"`
}

// Prices is the price table, by model name as the endpoint is configured (the `model` of an
// endpoint, e.g. "gpt-4o-mini").
type Prices map[string]Price

// Validate refuses negative and non-finite prices, naming the model and field.
func (p Prices) Validate() error {
	for model, pr := range p {
		for name, v := range map[string]*float64{"promptPerMTok": pr.PromptPerMTok, "completionPerMTok": pr.CompletionPerMTok,
			"perMinute": pr.PerMinute, "perMChars": pr.PerMChars} {
			if v != nil && (*v < 0 || math.IsNaN(*v) || math.IsInf(*v, 0)) {
				return fmt.Errorf("%w: prices.%s.%s is %v", ErrInvalidPrice, model, name, *v)
			}
		}
	}
	return nil
}

// Cost is what an exam cost. When Known is false Amount is meaningless and Unknown says why
// in plain words; a cost is never shown as 0 because a price or a count was missing.
type Cost struct {
	Amount  float64
	Known   bool
	Unknown string
}

// Cost prices the totals. An exam that used no model costs 0 (known). A model with no price,
// or a price without the field a count needs, or calls whose server sent no usage, make the
// cost unknown: one rule for the three stages.
func (t Totals) Cost(p Prices) Cost {
	var sum float64
	var why []string
	for _, model := range t.Models() {
		m := t.LLM[model]
		pr, ok := p[model]
		switch {
		case !ok:
			why = append(why, fmt.Sprintf("no price for %s", model))
			continue
		case pr.PromptPerMTok == nil || pr.CompletionPerMTok == nil:
			why = append(why, fmt.Sprintf("%s has no promptPerMTok or completionPerMTok price", model))
			continue
		}
		if m.UnknownTurns > 0 {
			why = append(why, fmt.Sprintf("%s sent no usage for %d of %d calls", model, m.UnknownTurns, m.Turns))
			continue
		}
		sum += float64(m.PromptTokens)**pr.PromptPerMTok/1e6 + float64(m.CompletionTokens)**pr.CompletionPerMTok/1e6
	}
	for _, model := range t.STTModels() {
		pr, ok := p[model]
		switch {
		case !ok:
			why = append(why, fmt.Sprintf("no price for %s", model))
		case pr.PerMinute == nil:
			why = append(why, fmt.Sprintf("%s has no perMinute price", model))
		default:
			sum += t.STT[model].Seconds / 60 * *pr.PerMinute
		}
	}
	for _, model := range t.TTSModels() {
		pr, ok := p[model]
		switch {
		case !ok:
			why = append(why, fmt.Sprintf("no price for %s", model))
		case pr.PerMChars == nil:
			why = append(why, fmt.Sprintf("%s has no perMChars price", model))
		default:
			sum += float64(t.TTS[model].Characters) * *pr.PerMChars / 1e6
		}
	}
	if len(why) > 0 {
		return Cost{Unknown: strings.Join(why, "; ")}
	}
	// Rounded to a billionth so float noise (0.44999999999999996) never reaches a person.
	return Cost{Amount: math.Round(sum*1e9) / 1e9, Known: true}
}

// String is the cost for a person: four decimals, or "unknown (why)".
func (c Cost) String() string {
	if !c.Known {
		return "unknown (" + c.Unknown + ")"
	}
	return fmt.Sprintf("%.4f", c.Amount)
}

// Short is the cost for a narrow column: four decimals or "?".
func (c Cost) Short() string {
	if !c.Known {
		return "?"
	}
	return fmt.Sprintf("%.4f", c.Amount)
}

// Over reports whether a known cost is above budget (budget 0: none).
func (c Cost) Over(budget float64) bool { return budget > 0 && c.Known && c.Amount > budget }
