// ESLint over the extension (tests/test_lint.py runs it): the recommended rules, with each file parsed the way the
// browser loads it. The background service worker, the popup, the options page's own script, the offscreen
// page and the reader's and note's frames are ES modules (manifest "type": "module", <script type="module">);
// everything else (the shared limits, template and document scripts, the content scripts injected by
// scripting.executeScript) is a classic script that talks through globalThis.
const js = require("@eslint/js");
const globals = require("globals");

const MODULES = ["extension/background/**/*.js", "extension/popup/*.js", "extension/options/options.js",
  "extension/offscreen/*.js", "extension/reader/reader.js", "extension/reader/narrate.js", "extension/reader/element.js",
  "extension/reader/bundle.js", "extension/note/note.js"];

module.exports = [
  { ignores: ["node_modules/**", "tests/pages/**"] },
  {
    files: ["extension/**/*.js"],
    ...js.configs.recommended,
    languageOptions: {
      ecmaVersion: "latest",
      sourceType: "script",
      globals: { ...globals.browser, ...globals.webextensions },
    },
  },
  { files: MODULES, languageOptions: { sourceType: "module" } },
];
