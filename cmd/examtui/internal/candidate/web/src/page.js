// The candidate's join page. It shows only what the candidate view of the exam carries
// (topic exam-runtime-events: exam_state, node_entered, time_warning, command_acknowledged,
// spoken, exam_completed), subscribes only to the examiner bot's voice, and sends typed answers
// on exam-candidate-input. Join credentials come from POST /api/join: nothing secret is in the URL
// but the one-time join code, which the server binds to this browser on first use.
//
// livekit-client is loaded without holding the page up (its own chunk, see build.mjs): the
// microphone check needs only the browser, and the library arrives while the candidate does it.

const TOPIC_EVENTS = 'exam-runtime-events';
const TOPIC_INPUT = 'exam-candidate-input';
const TOPIC_RECEIPTS = 'exam-input-receipts';
const ROLE_ATTRIBUTE = 'examtui.role';
// Who may hear the candidate's microphone: the examiner bot and supervising examiners.
const LISTENER_ROLES = ['bot', 'examiner'];
// The microphone as livekit-client captures it by default.
const MIC_CAPTURE = { echoCancellation: true, noiseSuppression: true, autoGainControl: true };
const REJOIN_EVERY_MS = 3000;
const LEAVE_AFTER_END_MS = 60000;
// A message the bot has not confirmed is sent again this often, and at once after a
// reconnection: a reliable data packet is reliable only within one connection.
const RESEND_EVERY_MS = 1500;

const $ = (id) => document.getElementById(id);

// The page's words in the exam's language: the server renders the page with its language pack's
// page strings (in the HTML, and as JSON here for what the script says), so nothing waits for
// them. {name} in a string is filled in by t.
const STRINGS = readStrings();

function readStrings() {
  try { return JSON.parse($('page-strings').textContent) || {}; } catch { return {}; }
}

function t(key, args) {
  let s = STRINGS[key] || key;
  for (const [k, v] of Object.entries(args || {})) s = s.replaceAll('{' + k + '}', String(v));
  return s;
}

const ui = {
  main: $('main'), connection: $('connection'),
  notice: $('notice'), noticeText: $('notice-text'), noticeAck: $('notice-ack'),
  micPanel: $('mic-panel'), mic: $('mic'), level: $('level'), micNote: $('mic-note'),
  setup: $('setup'), join: $('join'), joinError: $('join-error'),
  exam: $('exam'), progress: $('progress'), timeLeft: $('time-left'), state: $('state'),
  paused: $('paused'), warning: $('warning'), captions: $('captions'),
  answerForm: $('answer-form'), answer: $('answer'), answerNote: $('answer-note'),
  rejoinRow: $('rejoin-row'), rejoin: $('rejoin'),
  ended: $('ended'), endedTitle: $('ended-title'), endedText: $('ended-text'),
};

const code = joinCode();
let audioCtx = null;
let mic = null; // the microphone's MediaStreamTrack while it is checked, before joining
let micTrack = null; // the LiveKit LocalAudioTrack once published
let micAnalyser = null;
let micSource = null;
let room = null;
let noticeAcked = false; // the candidate acknowledged the recording notice (sent with the join)
let joined = false; // the candidate pressed Join (a rejoin after a drop keeps this)
let ended = false;
let rejoinTimer = null;
let deadline = null; // Date of the exam's deadline while it runs
let frozenLeft = null; // seconds left when the exam paused
let examState = '';
const seen = new Set(); // sessionId/seq of events shown: the join replay repeats live ones
let lastCaption = null;
let captionsAtEnd = true; // the caption log shows its newest line (the candidate did not scroll up)
let ackShown = false; // the answer box's note is a command's acknowledgement: true, 'answered' once the examiner answered it
let livekitModule = null;

// ?measure turns on the latency probe (BenchmarkBrowserLatency): it costs a timer every 10 ms.
const measure = new URLSearchParams(location.search).has('measure') ? newLatencyProbe() : null;

function joinCode() {
  const parts = location.pathname.split('/').filter(Boolean);
  if (parts.length === 2 && parts[0] === 'join') {
    try { return decodeURIComponent(parts[1]); } catch { return ''; }
  }
  return '';
}

// livekit-client, fetched once (again after a failure: the next Join tries anew).
function livekit() {
  if (!livekitModule) {
    livekitModule = import('./livekit.js').then((m) => {
      performance.mark('examtui-livekit-loaded');
      return m;
    }, (err) => {
      livekitModule = null;
      throw err;
    });
  }
  return livekitModule;
}

function setConnection(text, kind) {
  ui.connection.textContent = text;
  ui.connection.className = 'connection' + (kind ? ' ' + kind : '');
}

// ---- the microphone check -------------------------------------------------------------------

function context() {
  if (!audioCtx) audioCtx = new AudioContext();
  return audioCtx;
}

// Browsers start an AudioContext suspended until the page is used: the meter runs after the
// first click or key press (choosing a microphone, or Join).
function resumeAudio() {
  if (audioCtx && audioCtx.state === 'suspended') audioCtx.resume().catch(() => {});
  if (audioCtx && audioCtx.state !== 'running' && !joined) {
    ui.micNote.textContent = t('micStart');
  }
}

function meterSource() {
  if (micSource) micSource.disconnect();
  const ctx = context();
  micSource = ctx.createMediaStreamSource(new MediaStream([liveMic()]));
  if (!micAnalyser) {
    micAnalyser = ctx.createAnalyser();
    micAnalyser.fftSize = 1024;
  }
  micSource.connect(micAnalyser);
  if (measure) measure.setMic(micAnalyser);
}

// The microphone's track: the published one once joined, the checked one before.
function liveMic() {
  return micTrack ? micTrack.mediaStreamTrack : mic;
}

async function openMic(deviceId) {
  const capture = deviceId ? { ...MIC_CAPTURE, deviceId } : MIC_CAPTURE;
  try {
    if (micTrack) {
      await micTrack.restartTrack(capture); // published: livekit-client swaps the sender's track
    } else {
      const next = (await navigator.mediaDevices.getUserMedia({ audio: capture })).getAudioTracks()[0];
      if (mic) mic.stop();
      mic = next;
    }
    meterSource();
    ui.micNote.textContent = '';
    await listMics();
    enableJoin(!code || ended || joined);
    resumeAudio();
  } catch (err) {
    ui.micNote.textContent = t('micError') + ' (' + (err && err.name ? err.name : err) + '). ' + t('micAllow');
    enableJoin(!code);
  }
}

// The Join button's state; the first time it can be pressed is marked for the load test.
function enableJoin(disabled) {
  ui.join.disabled = disabled;
  if (!disabled && performance.getEntriesByName('examtui-join-usable').length === 0) performance.mark('examtui-join-usable');
}

async function listMics() {
  const devices = (await navigator.mediaDevices.enumerateDevices()).filter((d) => d.kind === 'audioinput');
  const current = liveMic() ? liveMic().getSettings().deviceId : '';
  ui.mic.replaceChildren(...devices.map((d, i) => {
    const o = document.createElement('option');
    o.value = d.deviceId;
    o.textContent = d.label || t('micLabel') + ' ' + (i + 1);
    o.selected = d.deviceId === current;
    return o;
  }));
}

function drawLevel() {
  if (micAnalyser) ui.level.value = Math.min(1, rms(micAnalyser) * 4);
  requestAnimationFrame(drawLevel);
}

function rms(analyser) {
  const buf = new Float32Array(analyser.fftSize);
  analyser.getFloatTimeDomainData(buf);
  let sum = 0;
  for (const v of buf) sum += v * v;
  return Math.sqrt(sum / buf.length);
}

// ---- joining --------------------------------------------------------------------------------

const REFUSALS = {
  used: 'refusedUsed', notFound: 'refusedNotFound', expired: 'refusedExpired', revoked: 'refusedRevoked', internal: 'refusedInternal',
};

async function fetchJoin() {
  const res = await fetch('/api/join', {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ code, notice: noticeAcked }), credentials: 'same-origin', cache: 'no-store',
  });
  let body = {};
  try { body = await res.json(); } catch { /* a proxy's error page: the status says enough */ }
  if (!res.ok) {
    // The server names its refusal (reason); the page says it in its own language.
    const key = REFUSALS[body.reason];
    const err = new Error(key ? t(key) : body.error || t('serverAnswered', { status: res.status }));
    err.status = res.status;
    throw err;
  }
  return body;
}

async function join() {
  ui.join.disabled = true;
  ui.joinError.textContent = '';
  resumeAudio();
  setConnection(t('joining'));
  let creds;
  try {
    creds = await fetchJoin();
  } catch (err) {
    ui.joinError.textContent = t('cannotJoin') + ' ' + err.message;
    setConnection('');
    ui.join.disabled = false;
    return;
  }
  joined = true;
  ui.setup.hidden = true;
  ui.exam.hidden = false;
  ui.main.appendChild(ui.micPanel); // below the exam now: the question comes first
  try {
    await connect(creds);
  } catch (err) {
    setConnection(t('connectFailed') + ' ' + err.message + '. ' + t('tryingAgain'), 'bad');
    scheduleRejoin();
    return;
  }
  ui.captions.focus();
}

async function connect(creds) {
  const { Room, RoomEvent, Track, DisconnectReason } = await livekit();
  const r = new Room({ adaptiveStream: false, dynacast: false });
  room = r;
  r.on(RoomEvent.DataReceived, (payload, participant, _kind, topic) => {
    if ((topic !== TOPIC_EVENTS && topic !== TOPIC_RECEIPTS) || !isBot(participant)) return;
    let msg;
    try { msg = JSON.parse(new TextDecoder().decode(payload)); } catch { return; }
    if (topic === TOPIC_RECEIPTS) confirmed(msg);
    else showEvent(msg);
  });
  r.on(RoomEvent.TrackPublished, (pub, participant) => subscribeIfBot(pub, participant));
  r.on(RoomEvent.ParticipantAttributesChanged, (_changed, participant) => {
    if (participant !== r.localParticipant) participant.trackPublications.forEach((pub) => subscribeIfBot(pub, participant));
    allowListeners(r);
    if (isBot(participant)) resendUnconfirmed(r, 0);
  });
  r.on(RoomEvent.ParticipantPermissionsChanged, (_prev, participant) => {
    if (participant !== r.localParticipant) allowListeners(r);
  });
  r.on(RoomEvent.ParticipantConnected, (participant) => {
    allowListeners(r);
    if (isBot(participant)) { sayReady(r); resendUnconfirmed(r, 0); }
  });
  r.on(RoomEvent.TrackSubscribed, (track, _pub, participant) => {
    if (track.kind !== Track.Kind.Audio || !isBot(participant)) return;
    const el = track.attach();
    el.hidden = true;
    document.body.appendChild(el);
    if (measure) measure.setBot(track.mediaStreamTrack, context(), track);
  });
  r.on(RoomEvent.ParticipantDisconnected, (participant) => {
    allowListeners(r);
    if (ended && isBot(participant)) r.disconnect().catch(() => {});
  });
  r.on(RoomEvent.TrackUnsubscribed, (track) => track.detach().forEach((el) => el.remove()));
  // A lost signalling connection alone (media may still flow) reads the same to the candidate.
  r.on(RoomEvent.SignalReconnecting, () => setConnection(t('reconnecting'), 'bad'));
  r.on(RoomEvent.Reconnecting, () => setConnection(t('reconnecting'), 'bad'));
  r.on(RoomEvent.Reconnected, () => {
    setConnection(t('reconnected'), 'good');
    sayReady(r);
    resendUnconfirmed(r, 0);
  });
  r.on(RoomEvent.Disconnected, (reason) => {
    if (r !== room) return;
    if (ended) return;
    if (reason === DisconnectReason.DUPLICATE_IDENTITY) {
      setConnection(t('otherTab'), 'bad');
      showRejoin();
      return;
    }
    setConnection(t('rejoining'), 'bad');
    scheduleRejoin();
  });
  await r.connect(creds.url, creds.token, { autoSubscribe: false });
  await r.startAudio().catch(() => {});
  r.remoteParticipants.forEach((p) => p.trackPublications.forEach((pub) => subscribeIfBot(pub, p)));
  allowListeners(r); // before the microphone is published: no one else ever gets it
  if (mic) {
    const pub = await r.localParticipant.publishTrack(mic, { source: Track.Source.Microphone });
    micTrack = pub.track;
    mic = null;
  }
  setConnection(t('connected'), 'good');
  ui.rejoinRow.hidden = true;
  sayReady(r);
  resendUnconfirmed(r, 0);
}

// Tells the examiner bot that this page can receive now, so that it sends the exam's events
// again (the page shows each once). On a busy machine the bot sees a joining page before the
// page's data channel is open, and what it sent then would be lost: a reloaded page would stay
// "paused". Said on joining, when the bot arrives, and after a reconnection, and said again
// until the bot confirms it (a newer one replaces an older one).
let readyId = null;
function sayReady(r) {
  if (r.state !== 'connected' || botsOf(r).length === 0) return;
  if (readyId) unconfirmed.delete(readyId);
  readyId = sendToBot(r, { type: 'ready' }, () => {});
}

// ---- messages to the examiner bot -----------------------------------------------------------

// Every message the page sends the bot carries an id and waits here for the bot's receipt
// (topic exam-input-receipts); until then it is sent again (RESEND_EVERY_MS, and after a
// reconnection). The bot takes an id once, so an answer sent twice is one answer.
const unconfirmed = new Map(); // id → { body, sentAt, onReceipt }
const pageId = Array.from(crypto.getRandomValues(new Uint8Array(6)), (b) => b.toString(16).padStart(2, '0')).join('');
let messageCount = 0;

function botsOf(r) {
  return [...r.remoteParticipants.values()].filter(isBot).map((p) => p.identity);
}

// publish sends body to the examiner bot only, never to the whole room: a participant without
// a role (an observer, a stranger with a token) must not read the candidate's answers.
function publish(r, body) {
  const bots = botsOf(r);
  if (bots.length === 0) return Promise.reject(new Error(t('examinerAbsent')));
  return r.localParticipant.publishData(new TextEncoder().encode(JSON.stringify(body)),
    { reliable: true, topic: TOPIC_INPUT, destinationIdentities: bots });
}

// sendToBot sends msg with a new id, keeps it until the bot's receipt (onReceipt is told of
// it) and returns the id. A first send that fails is sent again like a lost one.
function sendToBot(r, msg, onReceipt) {
  const id = pageId + '-' + (++messageCount);
  const m = { body: { schemaVersion: 1, ...msg, id }, sentAt: performance.now(), onReceipt };
  unconfirmed.set(id, m);
  publish(r, m.body).catch(() => {});
  return id;
}

function resendUnconfirmed(r, olderThanMs) {
  if (!r || r.state !== 'connected') return;
  const now = performance.now();
  for (const m of unconfirmed.values()) {
    if (now - m.sentAt < olderThanMs) continue;
    m.sentAt = now;
    publish(r, m.body).catch(() => {});
  }
}

setInterval(() => resendUnconfirmed(room, RESEND_EVERY_MS), RESEND_EVERY_MS / 3);

function confirmed(rc) {
  if (!rc || rc.type !== 'received' || typeof rc.id !== 'string') return;
  const m = unconfirmed.get(rc.id);
  if (!m) return; // a copy's receipt
  unconfirmed.delete(rc.id);
  m.onReceipt(rc);
}

// The examtui role the LiveKit server vouches for: the role attribute examtui put in the
// participant's token, which counts only when the participant cannot change its own attributes
// (docs/security.md).
function roleOf(participant) {
  if (!participant || !participant.attributes || !participant.permissions || participant.permissions.canUpdateMetadata) return '';
  return participant.attributes[ROLE_ATTRIBUTE] || '';
}

function isBot(participant) {
  return roleOf(participant) === 'bot';
}

// Only the examiner's voice is heard: another participant's audio (an observer, a second
// device) is never subscribed.
function subscribeIfBot(pub, participant) {
  if (isBot(participant) && pub.kind === 'audio' && !pub.isSubscribed) pub.setSubscribed(true);
}

// Only the examiner bot and supervising examiners may subscribe to the candidate's microphone:
// the LiveKit server refuses it to anyone else in the room (a participant without a role,
// another candidate). Sent again whenever someone arrives, leaves or changes.
function allowListeners(r) {
  if (r.state === 'disconnected') return;
  const allowed = [];
  r.remoteParticipants.forEach((p) => {
    if (LISTENER_ROLES.includes(roleOf(p))) allowed.push({ participantIdentity: p.identity, allowAll: true });
  });
  r.localParticipant.setTrackSubscriptionPermissions(false, allowed);
}

function showRejoin() {
  ui.rejoinRow.hidden = false;
}

function scheduleRejoin() {
  showRejoin();
  if (rejoinTimer || ended) return;
  rejoinTimer = setTimeout(rejoin, REJOIN_EVERY_MS);
}

async function rejoin() {
  clearTimeout(rejoinTimer);
  rejoinTimer = null;
  if (ended) return;
  const old = room;
  room = null;
  if (old) await old.disconnect().catch(() => {});
  if (micTrack) {
    // A dropped room stops the track it published: capture afresh from the same device.
    micTrack.stop();
    micTrack = null;
    await openMic(ui.mic.value || undefined);
  }
  try {
    setConnection(t('rejoining'), 'bad');
    await connect(await fetchJoin());
    setConnection(t('reconnected'), 'good');
  } catch (err) {
    if (err.status === 409 || err.status === 404 || err.status === 410) {
      setConnection(t('cannotRejoin') + ' ' + err.message, 'bad');
      return;
    }
    setConnection(t('stillDisconnected', { error: err.message }), 'bad');
    scheduleRejoin();
  }
}

// ---- what the exam says ---------------------------------------------------------------------

function showEvent(ev) {
  if (!ev || typeof ev.event !== 'string' || typeof ev.seq !== 'number') return;
  const key = (ev.sessionId || '') + '/' + ev.seq;
  if (seen.has(key)) return;
  seen.add(key);
  const p = ev.payload || {};
  switch (ev.event) {
    case 'exam_state': return showState(p);
    case 'node_entered': return showProgress(p.progress);
    case 'time_warning': return showWarning(p);
    case 'spoken': clearAckOnReply(p); return showCaption(p);
    case 'command_acknowledged': return showCommand(p);
    case 'exam_completed': return showEnded(p);
    default: // an event this page does not know: ignored, as the contract asks
  }
}

const STATE_WORDS = {
  created: 'stateStarting', scaffolding: 'stateStarting', ready: 'stateStarting',
  in_progress: 'stateInProgress', paused: 'statePaused', completed: 'stateFinished', aborted: 'stateStopped',
};

function stateWord(state) {
  return STATE_WORDS[state] ? t(STATE_WORDS[state]) : state;
}

// The runtime's pause reasons the page knows, in the page's language; another (an examiner's
// own words) is shown as it came.
function pauseReason(reason) {
  if (reason === 'candidate left') return t('pausedLeft');
  if (reason === 'candidate asked to pause') return t('pausedAsked');
  if (reason.startsWith('paused by ')) return t('pausedByExaminer');
  return reason;
}

function showState(p) {
  examState = p.state || '';
  ui.state.textContent = stateWord(examState);
  if (p.totalTimeBudgetSec && !deadline && frozenLeft === null) frozenLeft = p.totalTimeBudgetSec;
  if (examState === 'paused') {
    if (deadline) frozenLeft = secondsLeft();
    deadline = null;
    ui.paused.textContent = t('paused') + (p.reason ? ': ' + pauseReason(p.reason) : '') + '. ' + t('clockStopped');
    ui.paused.hidden = false;
  } else {
    ui.paused.hidden = true;
    if (p.examDeadlineAt) {
      const d = new Date(p.examDeadlineAt);
      if (!isNaN(d)) { deadline = d; frozenLeft = null; }
    }
  }
  if (examState === 'completed' || examState === 'aborted') showEnded({ state: examState, reason: p.reason });
  drawClock();
}

function showProgress(progress) {
  if (!progress || !progress.totalNodes) return;
  const n = { current: progress.currentNodeIndex, total: progress.totalNodes };
  ui.progress.textContent = t('progress', n);
  ui.progress.setAttribute('aria-label', t('progressLabel', n));
  ui.warning.hidden = true;
}

function showWarning(p) {
  const mins = Math.max(1, Math.round((p.remainingSec || 0) / 60));
  ui.warning.textContent = t(p.scope === 'exam' ? 'warnExam' : 'warnQuestion', { minutes: mins });
  ui.warning.hidden = false;
}

function showCaption(p) {
  if (!p.text) return;
  const span = document.createElement('span');
  if (p.part > 0 && lastCaption) {
    span.textContent = ' ' + p.text;
    lastCaption.appendChild(span);
  } else {
    lastCaption = document.createElement('p');
    lastCaption.dir = 'auto'; // the examiner's words keep their own direction
    span.textContent = p.text;
    lastCaption.appendChild(span);
    ui.captions.appendChild(lastCaption);
  }
  captionsAtEnd = true;
  scrollCaptions();
}

// The newest caption stays in view when the box changes size (a resize, a phone turned, a
// larger text size), unless the candidate scrolled up to read an older line.
function scrollCaptions() {
  if (captionsAtEnd) ui.captions.scrollTop = ui.captions.scrollHeight;
}

function showCommand(p) {
  if (!p.accepted) return;
  setNote(t('commandTaken'));
  ackShown = true;
}

// A command's acknowledgement is about that request: it goes when the candidate's next answer
// is sent (typed), or when the examiner says something after its answer to the command (the
// candidate view does not say why a line is said: the first utterance after the
// acknowledgement is the command's answer, the next one carries the exam on).
function clearAckOnReply(p) {
  if (ackShown === false || p.part > 0) return;
  if (ackShown === 'answered') {
    setNote('');
    ackShown = false;
  } else {
    ackShown = 'answered';
  }
}

function showEnded(p) {
  if (ended) return;
  ended = true;
  deadline = null;
  clearTimeout(rejoinTimer);
  ui.state.textContent = stateWord(p.state === 'aborted' ? 'aborted' : 'completed');
  ui.ended.hidden = false;
  ui.answerForm.hidden = true;
  ui.rejoinRow.hidden = true;
  ui.paused.hidden = true;
  ui.micPanel.hidden = true;
  ui.endedText.textContent = p.state === 'aborted'
    ? t('stopped') + (p.reason ? ' (' + p.reason + ')' : '') + '. ' + t('closePage')
    : t('endedText');
  setConnection('');
  ui.endedTitle.focus();
  // The examiner's closing words are still being spoken: leave when the examiner does, or a
  // minute after the end at the latest.
  const r = room;
  if (r) setTimeout(() => r.disconnect().catch(() => {}), LEAVE_AFTER_END_MS);
}

function secondsLeft() {
  return deadline ? Math.max(0, Math.round((deadline.getTime() - Date.now()) / 1000)) : frozenLeft;
}

let clockTicks = 0;

function drawClock() {
  ui.timeLeft.dataset.ticks = String(++clockTicks); // how often it was drawn, for the tests
  const s = secondsLeft();
  if (s === null || s === undefined) { ui.timeLeft.textContent = '–'; return; }
  ui.timeLeft.textContent = Math.floor(s / 60) + ':' + String(s % 60).padStart(2, '0');
}

// ---- typed answers --------------------------------------------------------------------------

function sendAnswer(e) {
  e.preventDefault();
  const text = ui.answer.value.trim();
  if (!text) return;
  if (!room) { setNote(t('notConnected')); return; }
  // The answer is the page's to deliver from here on: it is sent again until the examiner bot
  // confirms it, through a lost connection, a rejoin or a bot the page cannot see yet (its
  // participant info arrives late on a busy machine). The note says "sent" only then.
  const id = sendToBot(room, { type: 'candidate_text', text }, (rc) => {
    if (ui.answerNote.dataset.answer !== id) return; // a later answer or a command's note replaced it
    setNote(rc.refused ? t('notSent') + ' (' + rc.refused + '). ' + t('tryAgain') : t('sent') + ' ' + text, id);
  });
  ui.answer.value = '';
  setNote(t('sending') + ' ' + text, id);
  ackShown = false;
}

// setNote writes the note under the answer box; answerId names the typed answer it is about
// (its receipt may update it), none for any other note.
function setNote(text, answerId) {
  ui.answerNote.textContent = text;
  if (answerId) ui.answerNote.dataset.answer = answerId;
  else delete ui.answerNote.dataset.answer;
}

// ---- the latency probe (?measure) -----------------------------------------------------------

// Per turn: the candidate's last voiced window before the examiner's voice starts again → the
// examiner's first voiced window, both read from analysers in one AudioContext.
function newLatencyProbe() {
  const VOICED = 0.003; // about -50 dBFS RMS
  const GAP_MS = 300; // quiet this long ends a stretch of the examiner's speech
  let mic = null;
  let bot = null;
  let lastCand = 0;
  let candSinceBot = false;
  let botOn = false;
  let lastBot = 0;
  const probe = { turns: [], at: [] };
  window.examtuiMeasure = probe;
  setInterval(() => {
    const now = performance.now();
    if (mic && rms(mic) > VOICED) { lastCand = now; candSinceBot = true; }
    if (!bot) return;
    if (rms(bot) > VOICED) {
      if (!botOn && candSinceBot) {
        probe.turns.push(Math.round(now - lastCand));
        // Wall-clock times (ms since the epoch) of both ends, to set against the bot's own.
        probe.at.push([performance.timeOrigin + lastCand, performance.timeOrigin + now]);
        candSinceBot = false;
      }
      botOn = true;
      lastBot = now;
    } else if (botOn && now - lastBot > GAP_MS) {
      botOn = false;
    }
  }, 10);
  return {
    setMic(a) { mic = a; },
    setBot(mst, ctx, track) {
      // The mean time the examiner's audio waited in WebRTC's jitter buffer, in ms.
      probe.jitter = async () => {
        let ms = 0;
        (await track.getRTCStatsReport()).forEach((v) => {
          if (v.type === 'inbound-rtp' && v.jitterBufferEmittedCount) ms = 1000 * v.jitterBufferDelay / v.jitterBufferEmittedCount;
        });
        return ms;
      };
      const a = ctx.createAnalyser();
      a.fftSize = 1024;
      ctx.createMediaStreamSource(new MediaStream([mst])).connect(a);
      bot = a;
    },
  };
}

// ---- start ----------------------------------------------------------------------------------

ui.join.addEventListener('click', join);
ui.rejoin.addEventListener('click', rejoin);
ui.answerForm.addEventListener('submit', sendAnswer);
ui.mic.addEventListener('change', () => openMic(ui.mic.value));
document.addEventListener('pointerdown', resumeAudio);
document.addEventListener('keydown', resumeAudio);
ui.captions.addEventListener('scroll', () => {
  const c = ui.captions;
  captionsAtEnd = c.scrollTop + c.clientHeight >= c.scrollHeight - 2;
}, { passive: true });
new ResizeObserver(scrollCaptions).observe(ui.captions);
window.addEventListener('resize', scrollCaptions);
setInterval(drawClock, 1000);
requestAnimationFrame(drawLevel);
if (!code) {
  ui.joinError.textContent = t('needLink');
}
// The recording notice (in the HTML, as the server's configuration or the language pack gives
// it) comes first: the microphone opens only once the candidate has read it.
ui.noticeAck.addEventListener('click', () => {
  noticeAcked = true;
  ui.notice.hidden = true;
  ui.micPanel.hidden = false;
  openMic();
});
livekit().catch(() => {}); // fetched now, while the candidate reads the notice and checks the microphone; tried again on Join
