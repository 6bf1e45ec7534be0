// A small status note in the page: what Pith is doing, and any failure with the way to fix it, so that an
// action started from a shortcut or the context menu (no popup open) never fails silently.
//
// The note lives in a closed shadow root: the page's CSS cannot restyle it and its scripts cannot read it.
// Text is set with textContent only; messages never carry markup.
(() => {
  "use strict";
  if (globalThis.__pithToast) return;
  const api = globalThis.browser ?? globalThis.chrome;
  const L = globalThis.PITH_LIMITS;

  const CSS = `
    :host { all: initial; }
    .note { position: fixed; z-index: 2147483647; right: 16px; bottom: 16px; max-width: 380px;
      font: 14px/1.45 system-ui, sans-serif; color: #111; background: #fff; border: 1px solid #bbb;
      border-left: 5px solid #2563eb; border-radius: 6px; padding: 10px 34px 10px 12px;
      box-shadow: 0 4px 18px rgba(0,0,0,.18); }
    .note.error { border-left-color: #dc2626; }
    .note.done { border-left-color: #16a34a; }
    .title { font-weight: 600; margin-bottom: 2px; }
    .fix { margin-top: 6px; }
    code { font: 13px ui-monospace, monospace; background: #f1f5f9; padding: 1px 4px; border-radius: 3px; }
    button { position: absolute; top: 4px; right: 6px; border: 0; background: none; font-size: 18px;
      cursor: pointer; color: #555; }
    @media (prefers-color-scheme: dark) {
      .note { color: #eee; background: #1f2937; border-color: #4b5563; }
      code { background: #374151; } button { color: #ccc; } }`;

  let host = null;
  let timer = null;

  function hide() {
    clearTimeout(timer);
    if (host) host.remove();
    host = null;
  }

  const appendWithCode = globalThis.pithAppendWithCode;

  // note: {state: "progress" | "error" | "done", title, text, fix?}
  function show(note) {
    hide();
    host = document.createElement("pith-note");
    const root = host.attachShadow({ mode: "closed" });
    globalThis.pithStyleShadow(root, CSS);
    const box = document.createElement("div");
    box.className = `note ${note.state}`;
    box.setAttribute("role", note.state === "error" ? "alert" : "status");
    const title = document.createElement("div");
    title.className = "title";
    title.textContent = note.title;
    box.append(title);
    if (note.text) {
      const body = document.createElement("div");
      appendWithCode(body, note.text);
      box.append(body);
    }
    if (note.fix) {
      const fix = document.createElement("div");
      fix.className = "fix";
      appendWithCode(fix, note.fix);
      box.append(fix);
    }
    const close = document.createElement("button");
    close.textContent = "\u00d7";
    close.setAttribute("aria-label", "Close");
    close.addEventListener("click", hide);
    box.append(close);
    root.append(box);
    document.documentElement.append(host);
    if (note.state === "done") timer = setTimeout(hide, L.TOAST_MS);
    globalThis.__pithToast.last = note;  // what the user was told, for tests
  }

  globalThis.__pithToast = { show, hide, last: null };
  api.runtime.onMessage.addListener((message, sender) => {
    if (sender.id !== api.runtime.id || !message || message.type !== "pith.toast") return;
    show(message.note);
  });
})();
