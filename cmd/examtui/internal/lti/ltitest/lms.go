package ltitest

import (
	"encoding/json"
	"html/template"
	"net/http"
	"net/url"
	"slices"
)

// The stand-in's LMS page and its platform storage (1EdTech "LTI Client Side postMessages" and
// "postMessage Storage"): a course page on the platform's origin that embeds the tool in an
// iframe, with a hidden frame of the platform's own that keeps values for the tools
// (lti.put_data, lti.get_data) and says what it supports (lti.capabilities). Values are kept
// per tool origin, in the frame's memory, for as long as the course page is open.

// StorageFrame is the name of the storage frame, passed as lti_storage_target.
const StorageFrame = "lti_storage_frame"

// Storage behaviours for LMSPage.
const (
	StorageHonest = ""       // answers as the specification says
	StorageLies   = "lies"   // answers lti.get_data of a state key with another value
	StorageSilent = "silent" // never answers
)

// StorageRecord is one message the storage frame received.
type StorageRecord struct {
	Subject string `json:"subject"`
	Origin  string `json:"origin"`
	Key     string `json:"key"`
	Found   bool   `json:"found"`
}

// LoginInitiationWithStorage is LoginInitiation with lti_storage_target naming target (the
// LMS page's storage frame, or "_parent").
func (p *Platform) LoginInitiationWithStorage(user User, message, target string) string {
	u, _ := url.Parse(p.LoginInitiation(user, message))
	q := u.Query()
	q.Set("lti_storage_target", target)
	u.RawQuery = q.Encode()
	return u.String()
}

// LMSPage is the URL of a course page that embeds the tool, started at login (a login
// initiation URL), with the storage frame behaving as behaviour says.
func (p *Platform) LMSPage(login, behaviour string) string {
	return p.Server.URL + "/lms?" + url.Values{"login": {login}, "storage": {behaviour}}.Encode()
}

// StorageLog returns what the storage frame was asked, in order.
func (p *Platform) StorageLog() []StorageRecord {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.storageLog)
}

var lmsPage = template.Must(template.New("lms").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Oral examinations 101</title></head>
<body><h1>Oral examinations 101</h1>
<iframe name="` + StorageFrame + `" id="storage" src="/lms/storage?storage={{.Storage}}" hidden></iframe>
<div id="tool-slot"></div>
<script>
// The course page answers lti.capabilities from the tool's frame (the spec lets a tool ask its
// parent); the storage itself is the hidden frame's.
window.addEventListener('message', (ev) => {
  const tool = document.getElementById('tool');
  if (!tool || ev.source !== tool.contentWindow || !ev.data || ev.data.subject !== 'lti.capabilities') return;
  ev.source.postMessage({subject: 'lti.capabilities.response', message_id: ev.data.message_id, supported_messages: [
    {subject: 'lti.capabilities'}, {subject: 'lti.put_data', frame: '` + StorageFrame + `'}, {subject: 'lti.get_data', frame: '` + StorageFrame + `'}]}, ev.origin);
});
// The tool's frame starts once the storage frame is there to answer.
document.getElementById('storage').addEventListener('load', () => {
  const f = document.createElement('iframe');
  f.id = 'tool'; f.name = 'tool'; f.width = 900; f.height = 600;
  f.allow = 'microphone; autoplay';
  f.src = {{.Login}};
  document.getElementById('tool-slot').appendChild(f);
});
</script></body></html>`))

var storagePage = template.Must(template.New("storage").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>platform storage</title></head><body><script>
const behaviour = {{.Storage}};
const kept = new Map(); // tool origin + "\n" + key → value
const log = (rec) => fetch('/lms/storage/log', {method: 'POST', body: JSON.stringify(rec)});
window.addEventListener('message', (ev) => {
  const m = ev.data;
  if (!m || typeof m !== 'object' || typeof m.subject !== 'string' || !m.subject.startsWith('lti.')) return;
  const reply = (fields) => ev.source.postMessage(Object.assign({subject: m.subject + '.response', message_id: m.message_id}, fields), ev.origin);
  const k = ev.origin + '\n' + m.key;
  log({subject: m.subject, origin: ev.origin, key: m.key || '', found: kept.has(k)});
  if (behaviour === 'silent') return;
  if (!m.message_id) { reply({error: {code: 'bad_request', message: 'no message_id'}}); return; }
  switch (m.subject) {
  case 'lti.capabilities':
    reply({supported_messages: [{subject: 'lti.capabilities'}, {subject: 'lti.put_data'}, {subject: 'lti.get_data'}]});
    return;
  case 'lti.put_data':
    if (typeof m.key !== 'string' || m.key === '') { reply({error: {code: 'bad_request', message: 'no key'}}); return; }
    if (m.value === undefined || m.value === null) kept.delete(k); else kept.set(k, String(m.value));
    reply({key: m.key, value: m.value});
    return;
  case 'lti.get_data':
    if (typeof m.key !== 'string' || m.key === '') { reply({error: {code: 'bad_request', message: 'no key'}}); return; }
    let v = kept.get(k);
    if (behaviour === 'lies' && m.key.includes('state')) v = 'not-the-state';
    reply({key: m.key, value: v === undefined ? null : v});
    return;
  default:
    reply({error: {code: 'unsupported_subject', message: 'unsupported subject ' + m.subject}});
  }
});
</script></body></html>`))

func (p *Platform) lms(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = lmsPage.Execute(w, map[string]string{"Login": r.URL.Query().Get("login"), "Storage": r.URL.Query().Get("storage")})
}

func (p *Platform) storageFrame(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = storagePage.Execute(w, map[string]string{"Storage": r.URL.Query().Get("storage")})
}

func (p *Platform) storageRecord(w http.ResponseWriter, r *http.Request) {
	var rec StorageRecord
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&rec); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	p.storageLog = append(p.storageLog, rec)
	p.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}
