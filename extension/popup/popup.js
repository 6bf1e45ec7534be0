// The popup: three buttons that send the one `pith.run` message, and a status line that shows progress and
// any failure with its fix. Opened as popup/popup.html?tab=ID it works on that tab (tests, keyboard users).
import "../code_spans.js";

const api = globalThis.browser ?? globalThis.chrome;
const $ = (id) => document.getElementById(id);
const DONE = { reader: "Opened in reader view", highlight: "Highlight on", save: "Saved" };

function withCode(parent, text) {
  parent.replaceChildren();
  globalThis.pithAppendWithCode(parent, text);
}

function show(note) {
  const box = $("status");
  box.className = `status ${note.state}`;
  $("status-title").textContent = note.title || "";
  withCode($("status-text"), note.text);
  withCode($("status-fix"), note.fix);
  box.hidden = false;
}

// Opened as popup/popup.html?tab=ID (a tab, not the toolbar's popup): it stays open after an action.
const NAMED_TAB = Number(new URLSearchParams(location.search).get("tab"));
const AS_POPUP = !(Number.isInteger(NAMED_TAB) && NAMED_TAB > 0);

async function targetTab() {
  if (!AS_POPUP) return NAMED_TAB;
  const [tab] = await api.tabs.query({ active: true, currentWindow: true });
  return tab ? tab.id : undefined;
}

async function run(action, tabId) {
  const buttons = document.querySelectorAll("[data-action]");
  buttons.forEach((b) => { b.disabled = true; });
  show({ state: "progress", title: "Pith is working\u2026", text: "Reading the page\u2026" });
  try {
    const reply = await api.runtime.sendMessage({ type: "pith.run", action, tabId });
    if (reply && reply.ok) {
      if (action === "reader" && reply.reader && AS_POPUP) {
        window.close();  // the reader view over the page is the answer; the popup would sit on top of it
        return;
      }
      const title = action === "highlight" && !reply.highlighted ? "Highlight off"
        : action === "reader" && reply.closed ? "Reader view closed" : DONE[action];
      show({ state: "done", title, text: (reply.article && reply.article.title) || "" });
    } else {
      const error = (reply && reply.error) || { title: "No answer", text: "The extension's background did not reply.", fix: "Reload the extension." };
      show({ state: "error", title: error.title || error.code, text: error.text || error.message, fix: error.fix });
    }
  } finally {
    buttons.forEach((b) => { b.disabled = false; });
  }
}

// Developer option: "Record this page" saves the live snapshot (.msgpack) for `pith extract --snapshot`.
async function record(tabId) {
  show({ state: "progress", title: "Recording\u2026", text: "Reading the page\u2026" });
  const reply = await api.runtime.sendMessage({ type: "pith.record", tabId });
  if (reply && reply.ok) {
    show({ state: "done", title: "Recorded", text: reply.filename,
           fix: "Replay it with `pith extract --snapshot FILE.msgpack`; attach it to a bug report." });
  } else {
    const error = (reply && reply.error) || { title: "No answer", text: "The extension's background did not reply.", fix: "Reload the extension." };
    show({ state: "error", title: error.title || error.code, text: error.text || error.message, fix: error.fix });
  }
}

async function developerOption(tabId) {
  const { developer = false } = await api.storage.local.get("developer");
  $("developer").checked = developer;
  $("record").hidden = !developer;
  $("developer").addEventListener("change", () => {
    $("record").hidden = !$("developer").checked;
    api.storage.local.set({ developer: $("developer").checked });
  });
  $("record").addEventListener("click", () => record(tabId));
}

// On unless turned off (background/main.js starts the host ahead of the first click).
async function startHostOption() {
  const { startHost = true } = await api.storage.local.get("startHost");
  $("start-host").checked = startHost;
  $("start-host").addEventListener("change", () => api.storage.local.set({ startHost: $("start-host").checked }));
}

async function main() {
  const tabId = await targetTab();
  const { saveFormat = "markdown" } = await api.storage.local.get("saveFormat");
  $("format").value = saveFormat;
  $("format").addEventListener("change", () => api.storage.local.set({ saveFormat: $("format").value }));
  api.runtime.onMessage.addListener((message, sender) => {
    if (sender.id !== api.runtime.id || !message || message.type !== "pith.progress" || message.tabId !== tabId) return;
    if (message.note.state === "progress") show(message.note);
  });
  $("options").addEventListener("click", () => api.runtime.openOptionsPage());
  await startHostOption();
  await developerOption(tabId);
  document.querySelectorAll("[data-action]").forEach((button) => {
    button.addEventListener("click", () => run(button.dataset.action, tabId));
    button.disabled = false;
  });
  // The buttons stay disabled until they are wired: a click before that would otherwise do nothing at all.
  document.documentElement.dataset.ready = "true";
}

main();
