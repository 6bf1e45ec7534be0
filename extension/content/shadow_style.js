// A closed shadow root's stylesheet, for Pith's own elements in the page (the note, the reader view): adopted
// as a constructed sheet, which the page's CSP does not govern, else a <style> in the root. A classic script
// injected before the content scripts that use it, so it only assigns a global.
globalThis.pithStyleShadow = function styleShadow(root, css) {
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    root.adoptedStyleSheets = [sheet];
  } catch {
    // Firefox's content scripts cannot always adopt a sheet made in their own compartment.
    const style = root.ownerDocument.createElement("style");
    style.textContent = css;
    root.append(style);
  }
};
