// Every bound the extension works under, in one place. Loaded both as a classic script (injected into pages
// before the content scripts) and as a module (imported by the background), so it only assigns a global.
// The snapshot bounds mirror native_host/limits.py; tests/test_extension_files.py checks that they agree.
globalThis.PITH_LIMITS = Object.freeze({
  // Snapshot building (native_host/limits.py).
  MAX_NODES: 200000,
  MAX_NODE_TEXT: 100000,
  MAX_TOTAL_TEXT: 20000000,
  MAX_ATTR_CHARS: 2048,
  MAX_CLASSES: 32,
  MAX_META: 256,
  MAX_LINKS: 32,
  MAX_JSON_LD: 32,
  MAX_JSON_LD_CHARS: 100000,
  MAX_TAG_CHARS: 64,
  MAX_TITLE_CHARS: 4096,
  MAX_LANG_CHARS: 64,
  // The attributes read as an element's date, first found in this order (native_host/limits.py DATE_ATTRIBUTES).
  DATE_ATTRIBUTES: Object.freeze(["datetime", "publishdate", "publish-date", "published", "data-published",
    "data-publishdate", "data-publish-date", "data-published-date", "data-publicationdate", "data-pubdate",
    "date-time", "data-date", "data-datetime", "data-timestamp"]),
  // Native messaging (docs/protocol.md).
  HOST_NAME: "org.pith.reader",
  MAX_REQUEST_BYTES: 67108864,      // the host refuses larger requests (native_host/limits.py)
  HELLO_TIMEOUT_MS: 60000,          // the first request loads the model: allow for a cold disk
  HOST_EARLY_RETRY_MS: 600000,      // after a start ahead of the click fails, none is tried for this long
  EXTRACT_TIMEOUT_MS: 60000,        // base allowance for one extraction...
  EXTRACT_TIMEOUT_MS_PER_MB: 5000,  // ...plus this much per MB of snapshot JSON
  PROGRESS_AFTER_MS: 400,           // show "working" only when a step takes longer than this
  // User interface.
  TOAST_MS: 6000,
  FRAME_WAIT_MS: 10000,             // the reader's frame loads and shows its article within this, or the run fails                   // how long a success note stays on the page (errors stay until closed)
  MAX_FILENAME_CHARS: 100,          // saved file names, before the extension (native_host/limits.py)...
  MAX_FILENAME_BYTES: 200,          // ...and their UTF-8 bytes: file systems allow 255
  MAX_TEMPLATE_BYTES: 16384,        // a save template's JSON text (native_host/limits.py)...
  MAX_TEMPLATE_PROPERTIES: 50,      // ...and its properties
  MAX_SAVED_IMAGES: 100,            // images saved beside one Markdown file (native_host/limits.py)...
  MAX_IMAGE_BYTES: 20971520,        // ...and each image's size
  BLOB_URL_LIFETIME_MS: 60000,      // a saved article's download URL lives this long (the download reads it at once)
  READER_FONT_MIN_PX: 14,
  READER_FONT_MAX_PX: 28,
  READER_FONT_DEFAULT_PX: 19,
});
