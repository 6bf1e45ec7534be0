// The note in the page's corner: what Pith is doing, and any failure with the way to fix it, so that an action
// started from a shortcut or the context menu (no popup open) never fails silently. The extension's own page,
// in a frame over the web page (content/frames.js): the page's scripts cannot read or change it. Like the
// reader, it shows nothing without the one-time token the background gave it as its name, and takes its notes
// only from the background's port. Text is set with textContent only; messages never carry markup.
import "../limits.js";
import "../code_spans.js";
import { portName } from "../background/frames.js";

const api = globalThis.browser ?? globalThis.chrome;
const L = globalThis.PITH_LIMITS;
const appendWithCode = globalThis.pithAppendWithCode;
const token = window.name;
window.name = "";
let port = null;
let timer = null;

function part(className, text) {
  const el = document.createElement("div");
  el.className = className;
  appendWithCode(el, text);
  return el;
}

/** Off the page: the background takes this frame away. */
function close() {
  clearTimeout(timer);
  api.runtime.sendMessage({ type: "pith.frame.close", kind: "note" }).catch(() => {});
}

// note: {state: "progress" | "error" | "done", title, text, fix?}
function show(note) {
  clearTimeout(timer);
  const state = ["progress", "error", "done"].includes(note.state) ? note.state : "progress";
  const box = document.createElement("div");
  box.className = `note ${state}`;
  box.setAttribute("role", state === "error" ? "alert" : "status");
  box.append(part("title", note.title));
  if (note.text) box.append(part("text", note.text));
  if (note.fix) box.append(part("fix", note.fix));
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = "\u00d7";
  button.setAttribute("aria-label", "Close");
  button.addEventListener("click", (event) => { if (event.isTrusted) close(); });
  box.append(button);
  document.body.replaceChildren(box);
  document.documentElement.dataset.state = state;
  // The frame takes the note's height (the background sizes it in the page).
  port.postMessage({ type: "size", height: Math.ceil(document.documentElement.getBoundingClientRect().height) });
  if (state === "done") timer = setTimeout(close, L.TOAST_MS);
}

if (/^[0-9a-f]{32}$/.test(token)) {
  port = api.runtime.connect({ name: portName(token) });
  port.onMessage.addListener((message) => {
    if (message.type === "note" && message.note && typeof message.note === "object") show(message.note);
  });
}
