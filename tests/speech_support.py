"""A stand-in for the Web Speech API's `speechSynthesis`, for the reader's Read aloud in browsers that have
no voice (headless ones): FAKE_SPEECH, run in the reader's frame with a list of [name, lang] voices, replaces
`speechSynthesis` and `SpeechSynthesisUtterance` there. It records every call in `fakeSpeech.log` and ends an
utterance only when the test calls `fakeSpeech.finish()`."""

FAKE_SPEECH = """(root, voices) => {
  const log = [];
  let current = null, queue = [];
  class Utterance extends EventTarget {
    constructor(text) { super(); this.text = String(text); this.rate = 1; this.voice = null; this.lang = ''; }
  }
  const fire = (u, type, extra = {}) => u.dispatchEvent(Object.assign(new Event(type), extra));
  const synth = new EventTarget();
  const next = () => { current = queue.shift() || null; if (current) fire(current, 'start'); };
  Object.assign(synth, {
    voices: voices.map(([name, lang]) => ({name, lang, voiceURI: `fake:${name}`, localService: true, default: false})),
    getVoices() { return this.voices; },
    speak(u) { log.push(['speak', u.text, u.rate, u.voice ? u.voice.name : null]); queue.push(u); if (!current) next(); },
    cancel() { log.push(['cancel']); const gone = [current, ...queue].filter(Boolean); current = null; queue = [];
               for (const u of gone) fire(u, 'end'); },  // what some browsers do: an end for each
    pause() { log.push(['pause']); },
    resume() { log.push(['resume']); },
  });
  Object.defineProperty(window, 'speechSynthesis', {value: synth, configurable: true});
  window.SpeechSynthesisUtterance = Utterance;
  window.fakeSpeech = {
    log,
    boundary(charIndex) { fire(current, 'boundary', {charIndex, name: 'word'}); },
    finish() { const u = current; next(); fire(u, 'end'); },
    current: () => current && current.text,
  };
  return true;
}"""
