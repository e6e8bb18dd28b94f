package openaitest

import (
	"bytes"
	"io"
	"net/http"
	"strings"
)

const endpointTranscription = "/v1/audio/transcriptions"

func (s *Server) handleTranscription(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseMultipartForm(64 << 20); err != nil {
		badRequest(w, "Could not parse multipart form: "+err.Error())
		return
	}
	defer func() { _ = r.MultipartForm.RemoveAll() }()
	req := TranscriptionRequest{Fields: map[string][]string{}}
	for k, v := range r.MultipartForm.Value {
		req.Fields[k] = append([]string(nil), v...)
	}
	req.Model = r.FormValue("model")
	req.Language = r.FormValue("language")
	req.Prompt = r.FormValue("prompt")
	req.ResponseFormat = r.FormValue("response_format")
	req.Temperature = r.FormValue("temperature")
	f, fh, err := r.FormFile("file")
	if err == nil {
		req.FileName = fh.Filename
		req.File, err = io.ReadAll(f)
		_ = f.Close()
	}
	s.update(r, func(rec *Request) { rec.Transcription = &req })
	switch {
	case err != nil:
		badRequest(w, "Missing required parameter: 'file'.")
		return
	case req.Model == "":
		badRequest(w, "Missing required parameter: 'model'.")
		return
	}
	format := req.ResponseFormat
	if format == "" {
		format = "json"
	}
	if format != "json" && format != "text" && format != "verbose_json" {
		badRequest(w, "openaitest: response_format must be json, text or verbose_json, not "+format)
		return
	}

	b := s.next(&s.sttQ, func() Behaviour { return s.cfg.sttDefault(&req) })
	s.update(r, func(rec *Request) { rec.Behaviour = b.Kind })
	if !s.ready(w, r, b, endpointTranscription, KindTranscript) {
		return
	}
	tr := b.Transcript
	switch format {
	case "text":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, tr.Text+"\n")
	case "json":
		writeJSON(w, http.StatusOK, struct {
			Text string `json:"text"`
		}{tr.Text})
	default:
		writeJSON(w, http.StatusOK, verbose(tr, &req))
	}
}

type wireVerbose struct {
	Task     string        `json:"task"`
	Language string        `json:"language"`
	Duration float64       `json:"duration"`
	Text     string        `json:"text"`
	Segments []wireSegment `json:"segments"`
}

type wireSegment struct {
	ID               int     `json:"id"`
	Seek             int     `json:"seek"`
	Start            float64 `json:"start"`
	End              float64 `json:"end"`
	Text             string  `json:"text"`
	Tokens           []int   `json:"tokens"`
	Temperature      float64 `json:"temperature"`
	AvgLogprob       float64 `json:"avg_logprob"`
	CompressionRatio float64 `json:"compression_ratio"`
	NoSpeechProb     float64 `json:"no_speech_prob"`
}

// languageNames maps ISO-639-1 codes to the names verbose_json reports.
var languageNames = map[string]string{
	"en": "english", "de": "german", "fr": "french", "es": "spanish", "it": "italian",
	"nl": "dutch", "pt": "portuguese", "sv": "swedish", "pl": "polish", "fi": "finnish",
}

func verbose(tr Transcript, req *TranscriptionRequest) wireVerbose {
	lang := tr.Language
	if lang == "" {
		lang = languageNames[strings.ToLower(req.Language)]
	}
	if lang == "" {
		lang = "english"
	}
	dur := tr.Duration
	if dur == 0 {
		if pcm, err := ReadWAV(bytes.NewReader(req.File)); err == nil {
			dur = pcm.Duration().Seconds()
		}
	}
	segs := tr.Segments
	if len(segs) == 0 && tr.Text != "" {
		// The scores Whisper typically gives a clean, read answer (OpenAI's own verbose_json
		// example has avg_logprob -0.29 and no_speech_prob 0.01; docs/voice.md, "Adaptive end
		// of turn", has more): a complete answer, not a sure one.
		segs = []Segment{{Start: 0, End: dur, Text: tr.Text, AvgLogprob: -0.25, NoSpeechProb: 0.02}}
	}
	out := wireVerbose{Task: "transcribe", Language: lang, Duration: dur, Text: tr.Text, Segments: []wireSegment{}}
	for i, sg := range segs {
		out.Segments = append(out.Segments, wireSegment{
			ID: i, Seek: 0, Start: sg.Start, End: sg.End, Text: sg.Text, Tokens: []int{},
			Temperature: 0, AvgLogprob: sg.AvgLogprob, CompressionRatio: 1.0, NoSpeechProb: sg.NoSpeechProb,
		})
	}
	return out
}
