// The attacker's script (tests/test_page_attack.py): it runs first in the page and tries to read, change and
// drive whatever Pith lays over the page. What it reads it keeps in window.__attack.loot; it never reads the
// page's own article (#story), so article text in the loot came from Pith.
(() => {
  "use strict";
  const params = new URLSearchParams(location.search);
  const EXTENSION = params.get("ext");  // the extension's origin, to frame its reader page as any site can
  const state = { loot: [], sweeps: 0, seen: 0, clicks: 0, posted: 0, trusted: [], errors: [] };
  window.__attack = state;
  const roots = new Set();
  const internals = [];
  const frames = new Set();
  const attacked = new WeakSet();
  let busy = false;
  let own = null;  // the reader page, framed by the page itself as any site can
  const story = () => document.getElementById("story");
  const ours = (node) => !node || node === document || node === document.documentElement || node === document.body
    || node === document.head || (story() && story().contains(node)) || (own && own === node);
  const keep = (where, value) => {
    try {
      if (value !== null && value !== undefined && String(value)) state.loot.push(`${where}: ${String(value).slice(0, 4000)}`);
    } catch (error) { /* unreadable */ }
  };

  // Every custom element name Pith has used, defined first, each keeping its internals (and so its shadow root).
  for (const name of ["pith-reader", "pith-note", "pith-frame", "pith-view"]) {
    customElements.define(name, class extends HTMLElement {
      constructor() {
        super();
        try { internals.push(this.attachInternals()); } catch (error) { state.errors.push(String(error)); }
      }
    });
  }
  // Later definitions by anyone: recorded, and their elements' internals kept too.
  const define = customElements.define.bind(customElements);
  customElements.define = (name, constructor, options) => { keep("define", name); return define(name, constructor, options); };
  const attachInternals = HTMLElement.prototype.attachInternals;
  HTMLElement.prototype.attachInternals = function patchedInternals() {
    const value = attachInternals.call(this);
    internals.push(value);
    return value;
  };
  // Every shadow root made open, and kept.
  const attachShadow = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function patchedShadow(init) {
    const root = attachShadow.call(this, { ...init, mode: "open" });
    roots.add(root);
    return root;
  };
  // Listeners and dispatches seen; queries and reads of anything not the page's own.
  const addEventListener = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function patchedAdd(type, listener, options) {
    if (!busy && !ours(this)) keep("listener", `${type} on ${this.nodeName || this}`);
    return addEventListener.call(this, type, listener, options);
  };
  const dispatchEvent = EventTarget.prototype.dispatchEvent;
  EventTarget.prototype.dispatchEvent = function patchedDispatch(event) {
    if (!busy && !ours(this)) keep("dispatch", `${event.type} on ${this.nodeName || this}`);
    return dispatchEvent.call(this, event);
  };
  for (const [proto, name] of [[Element.prototype, "querySelector"], [Element.prototype, "querySelectorAll"],
                               [Document.prototype, "querySelector"], [Document.prototype, "getElementById"]]) {
    const original = proto[name];
    proto[name] = function patchedQuery(...args) {
      const found = original.apply(this, args);
      if (!busy && !ours(this)) keep(`query ${name}`, args[0]);
      return found;
    };
  }
  for (const [proto, name] of [[Node.prototype, "textContent"], [Element.prototype, "innerHTML"],
                               [HTMLElement.prototype, "innerText"], [Element.prototype, "shadowRoot"]]) {
    const described = Object.getOwnPropertyDescriptor(proto, name);
    Object.defineProperty(proto, name, { ...described, get() {
      const value = described.get.call(this);
      if (!busy && !ours(this)) {
        busy = true;
        try { keep(`get ${name}`, value instanceof Node ? value.textContent : value); } finally { busy = false; }
      }
      return value;
    } });
  }

  // Every event, caught first, on the window and the document.
  const TYPES = ["keydown", "keyup", "keypress", "input", "beforeinput", "click", "dblclick", "auxclick",
                 "mousedown", "mouseup", "pointerdown", "pointerup", "pointermove", "wheel", "touchstart",
                 "focus", "blur", "focusin", "focusout", "copy", "cut", "paste", "selectionchange", "message",
                 "toggle", "beforetoggle", "load", "scroll", "contextmenu", "change", "submit"];
  const describe = (event) => {
    const parts = [event.type, event.key || "", event.data || ""];
    for (const node of event.composedPath ? event.composedPath() : []) {
      if (node instanceof Node && !ours(node)) parts.push(node.nodeName, node.textContent);
    }
    if (event.type === "message") parts.push(JSON.stringify(event.data), event.origin);
    if (event.clipboardData) parts.push(event.clipboardData.getData("text/plain"));
    return parts.join(" | ");
  };
  for (const target of [window, document]) {
    for (const type of TYPES) {
      addEventListener.call(target, type, (event) => {
        busy = true;
        try {
          keep(`event ${event.type}`, describe(event));
          if (event.isTrusted && !["load", "focus", "blur", "focusin", "focusout", "scroll", "selectionchange",
                                   "pointermove", "message", "toggle", "beforetoggle"].includes(event.type)) {
            state.trusted.push(event.type);
          }
        } finally { busy = false; }
      }, { capture: true });
    }
  }

  // The guesses a page can post to a frame it finds.
  const GUESSES = ["save", "close", { type: "save" }, { type: "pith.reader.save" }, { type: "close" },
                   { type: "open", article: { title: "Forged", html: "<p>Forged by the page</p>" } },
                   { type: "complete", rest: { markdown: "forged" } }, { type: "pith.frame.close", kind: "reader" },
                   { type: "settings", readerTheme: "dark" }, { type: "note", note: { title: "Forged" } }];
  function drive(win, where) {
    for (const property of ["name", "origin", "document", "location", "length", "frameElement"]) {
      try {
        const value = win[property];
        keep(`${where} ${property}`, property === "document" ? value.documentElement.outerHTML
          : property === "location" ? value.href : value);
      } catch (error) { /* across origins */ }
    }
    for (const message of GUESSES) {
      try { win.postMessage(message, "*"); state.posted++; } catch (error) { /* closed */ }
    }
  }

  /** Read, change and press whatever is in a root (a shadow root, a frame's document) it got hold of. */
  function attack(root, where) {
    keep(`${where} html`, root.innerHTML || (root.documentElement && root.documentElement.outerHTML));
    keep(`${where} text`, root.textContent || (root.documentElement && root.documentElement.textContent));
    if (attacked.has(root)) return;
    attacked.add(root);
    const doc = root.ownerDocument || root;
    const injected = doc.createElement("p");
    injected.textContent = "Injected by the page";
    try { (root.querySelector("#article") || root.querySelector("article") || root).append(injected); } catch (e) { /* */ }
    for (const selector of ["[data-setting=readerTheme][data-value=dark]", "#larger", "[data-value=sans]"]) {
      const button = root.querySelector(selector);
      if (button) { button.click(); state.clicks++; }
    }
    for (let i = 0; i < 5; i++) {
      for (const id of ["#save", "#copy"]) {
        const button = root.querySelector(id);
        if (!button) continue;
        button.disabled = false;
        button.click();
        button.dispatchEvent(new MouseEvent("click", { bubbles: true, composed: true }));
        state.clicks++;
      }
    }
    for (const el of root.querySelectorAll("*")) {
      try {
        el.focus();
        el.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true, composed: true }));
      } catch (error) { /* */ }
    }
  }

  function sweep() {
    busy = true;
    try {
      state.sweeps++;
      if (EXTENSION && !own && document.body) {
        own = document.createElement("iframe");
        own.src = `${EXTENSION}/reader/reader.html`;
        own.name = "0123456789abcdef0123456789abcdef";  // a guessed token
        own.id = "own-reader";
        document.body.append(own);
      }
      for (const value of internals) if (value.shadowRoot) roots.add(value.shadowRoot);
      for (const el of document.querySelectorAll("*")) {
        if (el.shadowRoot) roots.add(el.shadowRoot);
        if (el.localName === "iframe" || el.localName === "frame") frames.add(el);
      }
      for (const el of document.documentElement.children) {
        if (el === document.head || el === document.body) continue;
        state.seen++;
        keep("element", el.outerHTML);
        keep("element text", el.textContent);
        try { el.click(); el.focus(); } catch (error) { /* */ }
        el.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true, composed: true }));
        if (el.shadowRoot) roots.add(el.shadowRoot);
      }
      for (const root of roots) {
        attack(root, "shadow");
        for (const frame of root.querySelectorAll("iframe")) frames.add(frame);
      }
      for (let i = 0; i < window.frames.length; i++) drive(window.frames[i], `frames[${i}]`);
      for (const frame of frames) {
        keep("frame name", frame.name);
        keep("frame src", frame.src);
        // Its own frame's first, blank document is the page's own (and the snapshot reads it as the page's).
        if (frame !== own) {
          try { attack(frame.contentDocument, "frame document"); } catch (error) { /* across origins */ }
        }
        if (frame.contentWindow) drive(frame.contentWindow, "frame window");
      }
      window.postMessage({ type: "pith.reader.save" }, "*");
    } catch (error) {
      state.errors.push(String(error && error.stack || error));
    } finally {
      busy = false;
    }
  }
  setInterval(sweep, 25);
})();
