// Read aloud, in the reader view: the article spoken paragraph by paragraph by the browser's own speech
// synthesis (the Web Speech API; nothing leaves the machine that the browser's voices do not send), with play
// and pause, the previous and next paragraph, the speed and the voice. The paragraph being read is marked and
// kept in view (scrolled smoothly, or at once where the user asks for reduced motion).
//
// The controls sit in a panel of their own under a toolbar button. Where the browser has no speech synthesis,
// or no voice to speak with, the panel shows a note saying so and how to get one instead of the controls; voices
// that arrive later (Chromium lists them asynchronously, `voiceschanged`) bring the controls back.
//
// The speed and the voice are kept in storage.local (`narrateRate`, `narrateVoice`, the voice's URI), written
// only by this panel's controls.
import { h } from "./element.js";

const api = globalThis.browser ?? globalThis.chrome;

const RATES = [0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.5];
const DEFAULT_RATE = 1;
// What is read, in document order: the innermost of these (a list item's paragraphs, not the item twice).
const READ = "h1, h2, h3, h4, h5, h6, p, li, dt, dd, blockquote, figcaption, pre, caption";
const NO_VOICE = "Read aloud needs a voice, and this browser has none. Install one for your system"
  + " (on Linux: speech-dispatcher with espeak-ng), then open the reader again.";
const NO_SPEECH = "This browser cannot read aloud (it has no speech synthesis).";

function rateText(rate) {
  return `${rate}\u00d7`;
}

/** The blocks of `root` to read, in order: the header's title, then the article's innermost text blocks. */
export function readableBlocks(root) {
  const title = root.getElementById("title");
  const blocks = [...root.querySelectorAll(`#article :is(${READ})`)]
    .filter((el) => !el.querySelector(READ) && el.textContent.trim());
  return title && title.textContent.trim() ? [title, ...blocks] : blocks;
}

/** The toolbar button and the panel; `attach` wires them to the view. */
export function narrateControls() {
  const button = h("button", { type: "button", id: "narrate-button", title: "Read the article aloud",
                               "aria-expanded": "false", "aria-controls": "narrate" }, "Read aloud");
  const rates = h("select", { id: "narrate-rate", "aria-label": "Speed", title: "Speed" },
    ...RATES.map((rate) => h("option", { value: rate }, rateText(rate))));
  const panel = h("div", { id: "narrate", class: "narrate", role: "group", "aria-label": "Read aloud", dir: "ltr",
                           lang: "en", hidden: true },
    h("div", { class: "row", id: "narrate-controls" },
      h("button", { type: "button", id: "narrate-back", title: "Previous paragraph", "aria-label": "Previous paragraph" },
        "\u23ee"),
      h("button", { type: "button", id: "narrate-play", title: "Play", "aria-label": "Play" }, "\u25b6"),
      h("button", { type: "button", id: "narrate-forward", title: "Next paragraph", "aria-label": "Next paragraph" },
        "\u23ed"),
      rates),
    h("div", { class: "row", id: "narrate-voices" },
      h("label", { for: "narrate-voice" }, "Voice"), h("select", { id: "narrate-voice" })),
    h("p", { class: "narrate-note", id: "narrate-note", role: "status", hidden: true }));
  return { button, panel };
}

/** Wire the controls that `narrateControls` made, now in `root` (the reader's document). `closeOthers()`
 * closes the reader's other panel when this one opens. Returns {toggle(open), open()}. */
export function attachNarrate(root, { closeOthers = () => {}, lang = () => "" } = {}) {
  const $ = (id) => root.getElementById(id);
  // The browser's speech, looked up at each use (never kept): what the window has when the user asks.
  const synth = () => globalThis.speechSynthesis;
  const heard = new WeakSet();  // the speech objects whose voiceschanged this panel follows
  const state = { blocks: [], index: -1, playing: false, paused: false, utterance: null, offset: 0, spoken: 0,
                  rate: DEFAULT_RATE, voiceUri: "" };

  function voices() {
    try {
      const speech = synth();
      return speech ? Array.from(speech.getVoices()) : [];
    } catch {
      return [];
    }
  }

  /** The voices for the article's language first (all of them where none matches it). */
  function fillVoices() {
    const all = voices();
    const want = (lang() || "").toLowerCase().split("-")[0];
    const matching = want ? all.filter((v) => String(v.lang || "").toLowerCase().split(/[-_]/)[0] === want) : [];
    const list = matching.length ? matching : all;
    const select = $("narrate-voice");
    select.replaceChildren(h("option", { value: "" }, "Default"),
      ...list.map((v) => h("option", { value: v.voiceURI }, `${v.name}${v.lang ? ` (${v.lang})` : ""}`)));
    select.value = list.some((v) => v.voiceURI === state.voiceUri) ? state.voiceUri : "";
  }

  /** The controls where there is a voice to read with; the note saying why not where there is none. */
  function availability() {
    const speech = synth();
    const can = Boolean(speech && globalThis.SpeechSynthesisUtterance);
    if (can && !heard.has(speech) && typeof speech.addEventListener === "function") {  // voices that come later
      heard.add(speech);
      speech.addEventListener("voiceschanged", () => { if (!$("narrate").hidden) availability(); });
    }
    const any = can && voices().length > 0;
    $("narrate-controls").hidden = !any;
    $("narrate-voices").hidden = !any;
    const note = $("narrate-note");
    note.textContent = any ? "" : can ? NO_VOICE : NO_SPEECH;
    note.hidden = any;
    if (any) fillVoices();
    else if (state.playing) stop();
  }

  function mark(el) {
    for (const old of root.querySelectorAll(".narrating")) {
      old.classList.remove("narrating");
      old.removeAttribute("aria-current");
    }
    if (!el) return;
    el.classList.add("narrating");
    el.setAttribute("aria-current", "true");
    const view = root.querySelector(".view");
    const box = el.getBoundingClientRect(), sight = view.getBoundingClientRect();
    const toolbar = root.querySelector(".toolbar").getBoundingClientRect().height;
    if (box.top < sight.top + toolbar || box.bottom > sight.bottom) {
      const reduce = matchMedia("(prefers-reduced-motion: reduce)").matches;
      el.scrollIntoView({ block: "center", behavior: reduce ? "instant" : "smooth" });
    }
  }

  function showPlaying() {
    const play = $("narrate-play");
    const label = state.playing && !state.paused ? "Pause" : "Play";
    play.textContent = label === "Pause" ? "\u23f8" : "\u25b6";
    play.title = label;
    play.setAttribute("aria-label", label);
  }

  /** Speak block `index` from character `offset` (a restart after a change of speed or voice). */
  function speak(index, offset = 0) {
    if (index < 0 || index >= state.blocks.length) {
      stop();
      return;
    }
    state.index = index;
    const el = state.blocks[index];
    const text = el.textContent.replace(/\s+/g, " ").trim().slice(offset);
    const utterance = new globalThis.SpeechSynthesisUtterance(text);
    utterance.rate = state.rate;
    const voice = voices().find((v) => v.voiceURI === state.voiceUri);
    if (voice) utterance.voice = voice;
    else if (lang()) utterance.lang = lang();
    state.utterance = utterance;
    state.offset = offset;
    state.spoken = offset;
    utterance.addEventListener("boundary", (event) => {
      if (state.utterance === utterance && Number.isFinite(event.charIndex)) state.spoken = offset + event.charIndex;
    });
    utterance.addEventListener("end", () => {
      if (state.utterance === utterance && state.playing) speak(index + 1);
    });
    utterance.addEventListener("error", (event) => {
      if (state.utterance !== utterance || ["interrupted", "canceled"].includes(event.error)) return;
      stop();
      const note = $("narrate-note");
      note.textContent = `Could not read aloud: ${event.error || "the voice failed"}. Try another voice.`;
      note.hidden = false;
    });
    mark(el);
    synth().speak(utterance);
  }

  /** Cancel what is being said, leaving `state.utterance` unset so its events change nothing. */
  function silence() {
    state.utterance = null;
    const speech = synth();
    if (speech) speech.cancel();
  }

  function play() {
    if (state.playing && !state.paused) {  // pause
      state.paused = true;
      synth().pause();
    } else if (state.playing) {  // resume
      state.paused = false;
      synth().resume();
    } else {
      state.blocks = readableBlocks(root);
      state.playing = true;
      state.paused = false;
      silence();
      speak(state.index >= 0 && state.index < state.blocks.length ? state.index : 0);
    }
    showPlaying();
  }

  function stop() {
    state.playing = false;
    state.paused = false;
    silence();
    mark(null);
    state.index = -1;
    showPlaying();
  }

  /** Go to the paragraph `step` away (reading it, where reading). */
  function skip(step) {
    if (!state.playing) return;
    const next = Math.max(0, state.index + step);
    silence();
    state.paused = false;
    speak(next);
    showPlaying();
  }

  /** A new speed or voice takes effect at once: the paragraph goes on from the last word reached. */
  function restart() {
    if (!state.playing) return;
    const { index, spoken } = state;
    silence();
    state.paused = false;
    speak(index, spoken);
    showPlaying();
  }

  function toggle(open = $("narrate").hidden) {
    if (open) closeOthers();
    $("narrate").hidden = !open;
    $("narrate-button").setAttribute("aria-expanded", String(open));
    if (open) availability();
  }

  $("narrate-button").addEventListener("click", () => toggle());
  $("narrate-play").addEventListener("click", play);
  $("narrate-back").addEventListener("click", () => skip(-1));
  $("narrate-forward").addEventListener("click", () => skip(1));
  $("narrate-rate").addEventListener("change", () => {
    const rate = Number($("narrate-rate").value);
    state.rate = RATES.includes(rate) ? rate : DEFAULT_RATE;
    api.storage.local.set({ narrateRate: state.rate }).catch(() => {});
    restart();
  });
  $("narrate-voice").addEventListener("change", () => {
    state.voiceUri = $("narrate-voice").value;
    api.storage.local.set({ narrateVoice: state.voiceUri }).catch(() => {});
    restart();
  });
  // Leaving the reader stops the voice (a voice may outlive its frame otherwise).
  addEventListener("pagehide", () => { if (state.playing) stop(); });
  api.storage.local.get(["narrateRate", "narrateVoice"]).then((stored) => {
    const rate = Number(stored.narrateRate);
    state.rate = RATES.includes(rate) ? rate : DEFAULT_RATE;
    state.voiceUri = typeof stored.narrateVoice === "string" ? stored.narrateVoice : "";
    $("narrate-rate").value = String(state.rate);
  }, () => {});
  $("narrate-rate").value = String(DEFAULT_RATE);
  showPlaying();
  // Esc closes this panel first (the focus back on its button), before the reader's own Esc leaves the view:
  // registered before the reader's listener, it marks the key as used.
  document.addEventListener("keydown", (event) => {
    if (!event.isTrusted || event.key !== "Escape" || $("narrate").hidden) return;
    event.preventDefault();
    toggle(false);
    $("narrate-button").focus({ preventScroll: true });
  }, true);
  return { toggle, stop };
}
