// The reader's allowlist: article HTML from the host (built from a web page, so attacker-controlled) becomes
// DOM nodes of the reader page only through this pass.
//
// The markup is parsed with DOMParser into an inert document (no scripts run, nothing loads), then walked and
// rebuilt element by element with createElement: only the tags below survive, each with only its listed
// attributes; URLs must resolve to http(s) (mailto for links); everything else is dropped with its content
// (scripts, styles, frames, forms, SVG) or unwrapped to its text (unknown containers). No style, class, id or
// event-handler attribute ever reaches the reader, and the page's CSP (manifest) forbids inline script anyway.

const KEEP = new Set(`a abbr article aside b bdi bdo blockquote br caption cite code dd del details dfn div dl dt em
figcaption figure footer h1 h2 h3 h4 h5 h6 header hr i img ins kbd li main mark ol p pre q rp rt ruby s samp section
small span strong sub summary sup table tbody td tfoot th thead time tr u ul var wbr`.split(/\s+/));
const DROP = new Set(`script style template iframe frame frameset object embed applet svg math noscript form input
button select textarea option optgroup datalist link meta base title head canvas video audio source track picture
dialog portal slot map area param`.split(/\s+/));
const ATTRS = {
  a: ["href", "title"],
  img: ["src", "alt", "title", "width", "height"],
  td: ["colspan", "rowspan"],
  th: ["colspan", "rowspan", "scope"],
  ol: ["start", "reversed"],
  details: ["open"],
  li: ["value"],
  time: ["datetime"],
  abbr: ["title"],
  dfn: ["title"],
  blockquote: [],
  q: [],
};
const NUMERIC = new Set(["width", "height", "colspan", "rowspan", "start", "value"]);
const LINK_PROTOCOLS = new Set(["http:", "https:", "mailto:"]);
const IMAGE_PROTOCOLS = new Set(["http:", "https:"]);
const SCOPES = new Set(["row", "col", "rowgroup", "colgroup"]);
const MAX_DEPTH = 200;  // deeper nesting is flattened: a hostile page must not cost unbounded recursion in layout

/** An absolute URL with an allowed scheme, or null. */
export function safeUrl(value, base, protocols) {
  let url;
  try {
    url = new URL(String(value).trim(), base || undefined);
  } catch (error) {
    return null;
  }
  return protocols.has(url.protocol) ? url.href : null;
}

function copyAttributes(source, target, tag, base) {
  for (const name of ATTRS[tag] || []) {
    if (!source.hasAttribute(name)) continue;
    const value = source.getAttribute(name);
    if (name === "href") {
      const href = safeUrl(value, base, LINK_PROTOCOLS);
      if (href) {
        target.setAttribute("href", href);
        target.setAttribute("target", "_blank");
        target.setAttribute("rel", "noopener noreferrer");
      }
    } else if (name === "src") {
      const src = safeUrl(value, base, IMAGE_PROTOCOLS);
      if (src) target.setAttribute("src", src);
    } else if (NUMERIC.has(name)) {
      if (/^\d{1,5}$/.test(value.trim())) target.setAttribute(name, value.trim());
    } else if (name === "scope") {
      if (SCOPES.has(value.trim().toLowerCase())) target.setAttribute(name, value.trim().toLowerCase());
    } else if (name === "reversed" || name === "open") {
      target.setAttribute(name, "");
    } else {
      target.setAttribute(name, value.slice(0, 2048));
    }
  }
  if (tag === "img") {
    if (!target.hasAttribute("src")) return false;  // an image with nowhere safe to load from is dropped
    target.setAttribute("loading", "lazy");
    target.setAttribute("referrerpolicy", "no-referrer");
    target.setAttribute("decoding", "async");
  }
  return true;
}

/** Sanitised copy of `html` as a DocumentFragment of `doc`, URLs made absolute against `base`. */
export function sanitize(html, base, doc = document) {
  const parsed = new DOMParser().parseFromString(String(html || ""), "text/html");
  const fragment = doc.createDocumentFragment();
  const stack = [];
  for (let c = parsed.body ? parsed.body.lastChild : null; c; c = c.previousSibling) stack.push([c, fragment, 0]);
  while (stack.length) {
    const [node, parent, depth] = stack.pop();
    if (node.nodeType === Node.TEXT_NODE) {
      parent.append(doc.createTextNode(node.data));
      continue;
    }
    if (node.nodeType !== Node.ELEMENT_NODE) continue;  // comments, processing instructions
    const tag = node.localName;
    if (DROP.has(tag) || node.namespaceURI !== "http://www.w3.org/1999/xhtml") continue;
    let target = parent;
    if (KEEP.has(tag) && depth < MAX_DEPTH) {
      const el = doc.createElement(tag);
      if (!copyAttributes(node, el, tag, base)) continue;
      parent.append(el);
      target = el;
    }
    for (let c = node.lastChild; c; c = c.previousSibling) stack.push([c, target, target === parent ? depth : depth + 1]);
  }
  return fragment;
}
