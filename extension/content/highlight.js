// Outlines the main content in the live page, from the node ids of the snapshot the host labelled.
//
// Marks are data attributes styled by content/highlight.css (inserted by the extension, so the page's CSP
// cannot block it); clearing removes exactly the attributes set here. Only the outermost element of each
// block is marked (a paragraph, not every link and bold word inside it), and marks are drawn as regions, not
// one box per element: where every child of an element that shows text is marked, the element is
// marked instead (a list, not each of its items; an article, its headline and headings drawn inside it); a
// run of marked siblings left after that is drawn as one frame (its first, middle and last members each
// draw their part), so that no two outlines cross. The page's headline is outlined as the title. The first outlined block that is rendered is
// scrolled into view (smoothly, unless the user asks for reduced motion).
(() => {
  "use strict";
  if (globalThis.__pithHighlight) return;

  const ATTR = "data-pith-hl";
  const RUN = "data-pith-hl-run";  // "first" | "middle" | "last": a member of a run drawn as one frame
  const NEVER_MARKED = new Set(["html", "body", "head"]);
  let marked = [];

  function clear() {
    for (const el of marked) {
      el.removeAttribute(ATTR);
      el.removeAttribute(RUN);
    }
    const count = marked.length;
    marked = [];
    return count;
  }

  const rendered = (el) => el.getClientRects().length > 0;

  // Whether `el` shows text: what a region must not take in unmarked. A picture alone does not count: the
  // host keeps a figure whole or not at all, and a picture between main paragraphs is drawn inside them.
  // Stops at the first non-blank text rather than building the whole text of a large element.
  function showsContent(el) {
    if (!rendered(el)) return false;
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) if (t.data.trim()) return true;
    return false;
  }

  // Whether `parent` holds text of its own (outside its child elements), which no mark covers.
  function hasOwnText(parent) {
    for (let c = parent.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3 && c.data.trim()) return true;
    }
    return false;
  }

  // targets: element -> kind. Where every child of an element that shows anything is marked, the element
  // becomes the region instead, and so on upwards: marked the children's one kind, or "main" where body
  // text is among them (the title and headings inside keep their own marks, drawn within the region). Each
  // parent is looked at once, and again only when one of its children has become a mark.
  function mergeRegions(targets) {
    const waiting = new Set();
    for (const el of targets.keys()) if (el.parentElement) waiting.add(el.parentElement);
    for (const parent of waiting) {  // a Set's iteration visits what is added during it
      if (NEVER_MARKED.has(parent.localName) || targets.has(parent) || hasOwnText(parent)) continue;
      const kinds = new Set();
      let whole = true;
      for (const child of parent.children) {
        const kind = targets.get(child);
        if (kind !== undefined) kinds.add(kind);
        else if (showsContent(child)) { whole = false; break; }
      }
      if (!whole || !kinds.size || (kinds.size === 1 && kinds.has("title"))) continue;
      if (kinds.size > 1 && !kinds.has("main")) continue;
      const kind = kinds.size === 1 ? [...kinds][0] : "main";
      for (const child of [...parent.children]) if (targets.get(child) === kind) targets.delete(child);
      targets.set(parent, kind);
      if (parent.parentElement) {
        waiting.delete(parent.parentElement);  // looked at again, now that this child is a mark
        waiting.add(parent.parentElement);
      }
    }
  }

  // Runs of two or more rendered, consecutive, main siblings: [element, "first" | "middle" | "last"].
  function findRuns(targets) {
    const places = [];
    const parents = new Set();
    for (const el of targets.keys()) if (el.parentElement) parents.add(el.parentElement);
    for (const parent of parents) {
      let run = [];
      const close = () => {
        if (run.length > 1) run.forEach((el, i) => places.push([el, i === 0 ? "first" : i === run.length - 1 ? "last" : "middle"]));
        run = [];
      };
      for (const child of parent.children) {
        const kind = targets.get(child);
        if (kind === undefined) {
          if (showsContent(child)) close();
          continue;
        }
        if (!rendered(child)) continue;  // shows nothing: neither joins nor breaks a run
        if (kind === "main") run.push(child);
        else close();
      }
      close();
    }
    return places;
  }

  // The first rendered mark in page order that is body text (else the first rendered one), or null.
  function firstShown(targets) {
    let first = null;
    let firstTitle = null;
    for (const [el, kind] of targets) {
      if (!rendered(el)) continue;
      const before = (other) => other === null || (el.compareDocumentPosition(other) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;
      if (kind === "title") {
        if (before(firstTitle)) firstTitle = el;
      } else if (before(first)) {
        first = el;
      }
    }
    return first || firstTitle;
  }

  // `first` into view unless its start is in the upper three quarters of the window already: smoothly, or at
  // once where the user asks for reduced motion.
  function scrollTo(first, rect) {
    const height = window.innerHeight;
    if (rect.top >= 0 && rect.top <= height * 0.75) return;
    const still = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    first.scrollIntoView({ behavior: still ? "instant" : "smooth", block: rect.height < height / 2 ? "center" : "start" });
  }

  // blocks: [{node_ids, kind: "title" | "heading" | "main"}] from a snapshot taken at `takenAt`; headline: the
  // node ids of the page's headline (outlined as the title), or none.
  function show(blocks, takenAt, headline = []) {
    const map = globalThis.__pith;
    if (!map || map.takenAt !== takenAt) {
      throw new Error("the page changed since it was read; run Highlight again");
    }
    clear();
    const targets = new Map();
    const all = headline.length ? [{ node_ids: headline, kind: "title" }, ...blocks] : blocks;
    for (const block of all) {
      const ids = new Set(block.node_ids);
      for (const id of block.node_ids) {
        if (ids.has(map.parents[id])) continue;  // inside another node of the same block
        const node = map.nodes[id];
        const el = node && (node.nodeType === 1 ? node : node.parentElement);
        if (el && !targets.has(el)) targets.set(el, block.kind);
      }
    }
    // Every layout read before the first mark is written: a read after a write would lay the page out again.
    mergeRegions(targets);
    const runs = findRuns(targets);
    const first = firstShown(targets);
    const rect = first && first.getBoundingClientRect();
    for (const [el, kind] of targets) {
      el.setAttribute(ATTR, kind);
      marked.push(el);
    }
    for (const [el, place] of runs) el.setAttribute(RUN, place);
    if (first) scrollTo(first, rect);
    return marked.length;
  }

  globalThis.__pithHighlight = { show, clear, active: () => marked.length > 0 };
})();
