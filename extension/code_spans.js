// Messages name the command that fixes things in `backquotes`; this shows those as <code>, the rest as plain
// text (never markup). Imported as a module by the popup and the note (note/note.js); it only assigns a global.
globalThis.pithAppendWithCode = function appendWithCode(parent, text) {
  const doc = parent.ownerDocument || document;
  String(text || "").split(/(`[^`]+`)/).forEach((part) => {
    if (part.length > 2 && part.startsWith("`") && part.endsWith("`")) {
      const code = doc.createElement("code");
      code.textContent = part.slice(1, -1);
      parent.append(code);
    } else if (part) {
      parent.append(doc.createTextNode(part));
    }
  });
};
