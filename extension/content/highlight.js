// Outlines the main content in the live page, from the node ids of the snapshot the host labelled.
//
// Marks are a data attribute styled by content/highlight.css (inserted by the extension, so the page's CSP
// cannot block it); clearing removes exactly the attributes set here. Only the outermost element of each
// block is outlined: a paragraph, not every link and bold word inside it.
(() => {
  "use strict";
  if (globalThis.__pithHighlight) return;

  const ATTR = "data-pith-hl";
  let marked = [];

  function clear() {
    for (const el of marked) el.removeAttribute(ATTR);
    const count = marked.length;
    marked = [];
    return count;
  }

  // blocks: [{node_ids, kind: "title" | "heading" | "main"}] from a snapshot taken at `takenAt`.
  function show(blocks, takenAt) {
    const map = globalThis.__pith;
    if (!map || map.takenAt !== takenAt) {
      throw new Error("the page changed since it was read; run Highlight again");
    }
    clear();
    const targets = new Map();
    for (const block of blocks) {
      const ids = new Set(block.node_ids);
      for (const id of block.node_ids) {
        if (ids.has(map.parents[id])) continue;  // inside another node of the same block
        const node = map.nodes[id];
        const el = node && (node.nodeType === 1 ? node : node.parentElement);
        if (el && !targets.has(el)) targets.set(el, block.kind);
      }
    }
    for (const [el, kind] of targets) {
      el.setAttribute(ATTR, kind);
      marked.push(el);
    }
    const first = marked.find((el) => el.getAttribute(ATTR) !== "title") || marked[0];
    if (first) {
      const rect = first.getBoundingClientRect();
      if (rect.bottom < 0 || rect.top > window.innerHeight) first.scrollIntoView({ block: "center" });
    }
    return marked.length;
  }

  globalThis.__pithHighlight = { show, clear, active: () => marked.length > 0 };
})();
