// The background's side of Pith's frames in a page (content/frames.js): the one-time token each frame is made
// for, and the port it connects with. A frame proves it is the one the extension laid over the page by
// connecting with the token it was given as its name; the token works once, only from the extension's own page
// of that kind, only in the tab it was made for. Everything a frame shows (the article, the note) comes over
// that port, from here: never from the page.
const api = globalThis.browser ?? globalThis.chrome;
const PAGES = { reader: "reader/reader.html", note: "note/note.html" };
const PREFIX = "pith.frame:";
const sessions = new Map();  // token -> {kind, tabId, port, connected, onMessage, onGone}

function randomToken() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A session for a frame of `kind` in tab `tabId`: {token, connected (resolves with the port), send, close}.
 * `onMessage(message)` gets what the frame sends; `onGone()` runs once the frame's port closes. */
export function expectFrame(kind, tabId, { onMessage = () => {}, onGone = () => {} } = {}) {
  const token = randomToken();
  let resolve;
  const session = { kind, tabId, port: null, onMessage, onGone, connected: new Promise((r) => { resolve = r; }) };
  session.accept = resolve;
  sessions.set(token, session);
  return {
    token,
    connected: session.connected,
    send(message) {
      if (session.port) session.port.postMessage(message);
      return Boolean(session.port);
    },
    end() {
      sessions.delete(token);
      if (session.port) session.port.disconnect();
      session.port = null;
    },
  };
}

/** The frame's name for a port: "pith.frame:<token>". */
export function portName(token) {
  return `${PREFIX}${token}`;
}

api.runtime.onConnect.addListener((port) => {
  if (typeof port.name !== "string" || !port.name.startsWith(PREFIX)) return;
  const token = port.name.slice(PREFIX.length);
  const session = sessions.get(token);
  // Another extension context's token (each context that imports this module keeps its own): not ours to judge.
  if (!session) return;
  const sender = port.sender || {};
  const page = api.runtime.getURL(PAGES[session.kind]);
  const url = typeof sender.url === "string" ? sender.url.split(/[?#]/)[0] : "";
  if (session.port || url !== page || !sender.tab || sender.tab.id !== session.tabId) {
    port.disconnect();  // a second use of the token, or not the frame it was made for
    return;
  }
  session.port = port;
  port.onMessage.addListener((message) => {
    if (message && typeof message === "object") session.onMessage(message);
  });
  port.onDisconnect.addListener(() => {
    if (sessions.get(token) !== session) return;
    sessions.delete(token);
    session.port = null;
    session.onGone();
  });
  port.postMessage({ type: "hello" });  // taken: the frame may get ready
  session.accept(port);
});
