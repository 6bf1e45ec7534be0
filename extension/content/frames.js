// Pith's two surfaces in the page, the reader view and the note, each an extension page (reader/reader.html,
// note/note.html) in an <iframe> that this content script lays over the page. What the user reads and clicks
// lives in that frame, on the extension's origin: the page's scripts cannot read it, change it, click in it or
// send it anything it listens to (the frame has no `message` listener; its article comes from the background
// over a port).
//
// The frame learns which view it is from a one-time token the background made, passed as the frame's name (its
// `window.name`, which the page cannot read across origins). The <iframe> element sits in a closed shadow root
// on a plain <div> (no custom element the page could have defined first and kept the internals of), so the
// page's scripts never see the element, its name or its address. A frame that loads a second document (the
// page navigated it) is taken off the page.
//
// A spare reader frame: once the user leaves the reader, the background lays a new reader frame over the page at
// once (`spare`), inert and transparent, clicks going through it, so that the next Reader view in this tab finds its
// page loaded, its script run and its port open. `place` with the spare's token takes it (no new frame); `place`
// with any other token, or a new spare, takes the old spare off the page.
(() => {
  "use strict";
  if (globalThis.__pithFrames) return;
  const api = globalThis.browser ?? globalThis.chrome;
  const PAGES = { reader: "reader/reader.html", note: "note/note.html" };
  // The host: reset against the page's style (an `all: initial !important` from inside the shadow root outranks
  // the page's own `!important`), fixed, in the browser's top layer (popover) above anything the page has.
  const HOST = ":host { all: initial !important; display: block !important; position: fixed !important;"
    + " z-index: 2147483647 !important; margin: 0 !important; padding: 0 !important; border: 0 !important;"
    + " background: transparent !important; overflow: hidden !important; visibility: visible !important;"
    + " opacity: 1 !important; transform: none !important; filter: none !important; clip-path: none !important;";
  const CSS = {
    // The whole viewport, scrollbar gutters included; clicks reach the page until the article is shown.
    reader: `${HOST} inset: 0 !important; width: 100vw !important; height: 100vh !important; max-width: none !important;
      max-height: none !important; pointer-events: none !important; }
      :host([data-active]) { pointer-events: auto !important; }`,
    // The note's corner, sized to the note (note.html tells its height through the background).
    note: `${HOST} inset: auto 16px 16px auto !important; width: min(400px, calc(100vw - 32px)) !important;
      height: auto !important; pointer-events: auto !important; }`,
  };
  const FRAME_CSS = "iframe { all: initial; display: block; width: 100%; height: 100vh; border: 0; margin: 0;"
    + " color-scheme: normal; background: transparent; }";

  const open = {};  // kind -> {host, frame, token, focus}
  let spare = null;  // the reader frame laid for the next click: {host, frame, token}

  function close(kind, token) {
    if (kind === "reader" && spare && token && spare.token === token) {
      spare.host.remove();
      spare = null;
      return true;
    }
    const view = open[kind];
    if (!view || (token && view.token !== token)) return false;
    delete open[kind];
    view.host.remove();
    const { focus } = view;
    if (focus && focus.isConnected && typeof focus.focus === "function") focus.focus({ preventScroll: true });
    return true;
  }

  /** A frame of `kind` for the background's one-time `token`, laid over the page: {host, frame}. */
  function lay(kind, token) {
    const host = document.createElement("div");
    host.setAttribute("popover", "manual");
    const root = host.attachShadow({ mode: "closed" });
    globalThis.pithStyleShadow(root, `${CSS[kind]}\n${FRAME_CSS}`);
    const frame = document.createElement("iframe");
    frame.name = token;
    frame.title = kind === "reader" ? "Reader view" : "Pith";
    frame.setAttribute("allow", "clipboard-write");
    frame.src = api.runtime.getURL(PAGES[kind]);
    if (kind === "note") frame.style.height = "0";  // until the note has measured itself
    let loads = 0;
    frame.addEventListener("load", (event) => {
      if (event.isTrusted && ++loads > 1) close(kind, token);  // navigated by the page: not Pith's frame any more
    });
    root.append(frame);
    return { host, frame };
  }

  function show(host) {
    (document.documentElement || document).append(host);
    if (typeof host.showPopover === "function") host.showPopover();
  }

  /** Lay the frame of `kind` over the page (replacing one there), for the background's one-time `token`; the
   * spare reader frame where `token` is its own. */
  function place(kind, token) {
    let taken = null;
    if (kind === "reader" && spare) {
      // The spare is taken only while it is still over the page: one the page took off before its frame connected
      // is laid afresh for the same token, which no frame has used yet.
      if (spare.token === token && spare.host.isConnected) taken = spare;
      else spare.host.remove();
      spare = null;
    }
    close(kind);
    // Where the focus was in the page, for close() to put it back: taken before the frame is laid, as Firefox
    // may focus the frame as soon as its document loads.
    const was = document.activeElement;
    const { host, frame } = taken || lay(kind, token);
    open[kind] = { host, frame, token, focus: Object.values(open).some((v) => v.host === was) ? null : was };
    if (taken) host.inert = false;
    else show(host);
    return true;
  }

  /** Lay a reader frame for the next click, for `token`: inert (no focus, no clicks) until `place` takes it. */
  function placeSpare(token) {
    if (open.reader && open.reader.token === token) return false;  // taken by a click before it was laid
    if (spare) spare.host.remove();
    spare = { ...lay("reader", token), token };
    spare.host.inert = true;
    show(spare.host);
    return true;
  }

  /** The reader's article is on its way: the frame takes the clicks and the keyboard focus. */
  function activate(kind, token) {
    const view = open[kind];
    if (!view || view.token !== token) return false;
    view.host.setAttribute("data-active", "");
    view.frame.focus({ preventScroll: true });
    return true;
  }

  /** The note's height, as note.html measured it (0: nothing to show). */
  function size(kind, token, height) {
    const view = open[kind];
    if (!view || view.token !== token) return false;
    view.frame.style.height = `${Math.max(0, Math.min(Number(height) || 0, innerHeight - 32))}px`;
    return true;
  }

  globalThis.__pithFrames = {
    place,
    spare: placeSpare,
    activate,
    size,
    close,
    active: (kind) => Boolean(open[kind] && open[kind].host.isConnected),
    // The snapshot's walk leaves Pith's own elements out (they are not the page's content).
    hosts: () => [...Object.values(open), ...(spare ? [spare] : [])].map((view) => view.host),
  };
})();
