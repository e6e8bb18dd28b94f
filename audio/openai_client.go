package audio

import (
	"fmt"
	"net/http"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// newOpenAIClient builds the go-openai client the speech providers share: baseURL ends in
// /v1; httpClient may be nil for http.DefaultClient.
func newOpenAIClient(baseURL, apiKey string, httpClient *http.Client) (*openai.Client, error) {
	if strings.TrimSpace(baseURL) == "" {
		return nil, fmt.Errorf("%w: empty OpenAI base URL (set OPENAI_BASE_URL)", ErrInvalidConfig)
	}
	cfg := openai.DefaultConfig(apiKey)
	cfg.BaseURL = strings.TrimRight(baseURL, "/")
	if httpClient != nil {
		cfg.HTTPClient = httpClient
	}
	return openai.NewClientWithConfig(cfg), nil
}
