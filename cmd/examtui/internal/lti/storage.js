// examtui's LTI platform storage (docs/lms.md): at login, put the state and nonce into the
// learning platform's storage frame, then go on to the platform; at launch, get them back
// and post them to the tool. Messages go to the platform's origin only; answers from any
// other origin, or for another message, are ignored.
(() => {
  'use strict';
  const d = document.getElementById('lti-storage').dataset;
  const status = document.getElementById('lti-status');
  const fail = (what) => {
    status.textContent = what + ' Launch the exam again from the course, or open it in a new window.';
    status.setAttribute('role', 'alert');
    status.id = 'lti-error';
  };
  const timeoutMs = 5000;
  // The platform's window: the page embedding the tool, or the one that opened it.
  const host = window.parent !== window ? window.parent : window.opener;
  let frame = null;
  try {
    frame = !host ? null : d.target === '_parent' ? host : host.frames[d.target];
  } catch (e) {
    frame = null;
  }
  if (!frame) {
    fail('The learning platform\'s storage frame "' + d.target + '" was not found.');
    return;
  }
  const ask = (subject, fields) => new Promise((resolve, reject) => {
    const id = 'examtui-' + Array.from(crypto.getRandomValues(new Uint32Array(4)), (n) => n.toString(36)).join('');
    const done = () => { clearTimeout(timer); window.removeEventListener('message', onMessage); };
    const timer = setTimeout(() => {
      done();
      reject(new Error('no answer to ' + subject + ' within ' + timeoutMs / 1000 + ' s'));
    }, timeoutMs);
    function onMessage(ev) {
      const m = ev.data;
      if (ev.origin !== d.origin || !m || typeof m !== 'object' || m.message_id !== id || m.subject !== subject + '.response') {
        return;
      }
      done();
      if (m.error) {
        reject(new Error(subject + ' refused: ' + (m.error.code || '') + ' ' + (m.error.message || '')));
        return;
      }
      resolve(m);
    }
    window.addEventListener('message', onMessage);
    frame.postMessage(Object.assign({ subject: subject, message_id: id }, fields), d.origin);
  });
  if (d.mode === 'login') {
    ask('lti.put_data', { key: d.stateKey, value: d.state })
      .then(() => ask('lti.put_data', { key: d.nonceKey, value: d.nonce }))
      .then(() => { window.location.replace(d.auth); })
      .catch((e) => fail('The learning platform did not keep this sign-in (' + e.message + ').'));
    return;
  }
  const form = document.getElementById('lti-verify');
  ask('lti.get_data', { key: d.stateKey })
    .then((s) => {
      form.elements.stored_state.value = typeof s.value === 'string' ? s.value : '';
      return ask('lti.get_data', { key: d.nonceKey });
    })
    .then((n) => {
      form.elements.stored_nonce.value = typeof n.value === 'string' ? n.value : '';
      form.submit();
    })
    .catch((e) => fail('The learning platform could not confirm this sign-in (' + e.message + ').'));
})();
