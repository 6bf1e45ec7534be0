// Every failure the user can meet, with the way out. The host's own error codes (docs/protocol.md) and the
// extension's (host_missing, host_timeout, ...) map here to a title, an explanation and a fix, so the popup,
// the in-page note and the `pith.run` reply all say the same thing.

const DOCTOR = "Run `pith doctor` in a terminal: it checks each link of the chain and prints the command that fixes it.";

export const PROBLEMS = {
  host_missing: {
    title: "Pith's helper is not installed",
    text: "The browser cannot find Pith's native helper (org.pith.reader), which does the extraction on this computer.",
    fix: "Install it: run `pith install` in a terminal, then try again. `pith doctor` checks the setup.",
  },
  host_forbidden: {
    title: "Pith's helper does not accept this extension",
    text: "The helper is installed, but its registration does not list this extension.",
    fix: "Run `pith install` again to renew the registration, then `pith doctor`.",
  },
  host_crashed: {
    title: "Pith's helper stopped",
    text: "The native helper exited or sent something that is not a protocol message.",
    fix: DOCTOR + " Its log is host.log in ~/.local/state/pith/log/ (macOS: ~/Library/Logs/pith/).",
  },
  host_timeout: {
    title: "Pith's helper is not answering",
    text: "The native helper took too long; it has been restarted for the next try.",
    fix: "Try again; if it keeps happening, " + DOCTOR,
  },
  host_protocol: {
    title: "Pith's helper answered out of turn",
    text: "A reply from the native helper did not follow the protocol.",
    fix: "Install matching releases of the extension and of pith (`pith --version`), then " + DOCTOR,
  },
  model_unavailable: {
    title: "Pith's model cannot be loaded",
    text: "The helper runs, but its extraction model is missing or broken.",
    fix: DOCTOR,
  },
  bad_snapshot: {
    title: "This page could not be sent to Pith",
    text: "The helper refused the page the extension read from it.",
    fix: "Reload the page and try again; if it persists, please report it (a bug in the extension).",
  },
  too_large: {
    title: "This page is too large for Pith",
    text: "The page is over the 64 MiB a browser may send to a native helper.",
    fix: "Save the page (Ctrl+S) and run `pith extract` on the file.",
  },
  unsupported_version: {
    title: "The extension and pith do not match",
    text: "The helper speaks a different protocol version.",
    fix: "Install matching releases of the extension and of pith, then run `pith install`.",
  },
  unknown_type: {
    title: "The extension and pith do not match",
    text: "The helper does not know this request; pith is older than the extension.",
    fix: "Update pith, then run `pith install`.",
  },
  bad_request: {
    title: "Pith's helper refused the request",
    text: "The helper could not read the request (a bug in the extension).",
    fix: "Please report it; " + DOCTOR,
  },
  bad_input: {
    title: "Pith's helper refused the input",
    text: "The helper could not use what it was given.",
    fix: "Please report it; " + DOCTOR,
  },
  timeout: {
    title: "Pith took too long on this page",
    text: "The page ran past the per-page time limit of a corpus job (the helper itself sets none).",
    fix: "Try again; if it keeps happening, please report the page.",
  },
  missing_extra: {
    title: "Pith's helper lacks an optional part",
    text: "The helper was asked for something that needs Pith's corpus extra (WARC, Parquet, Ray).",
    fix: "Run `pip install 'pith[corpus]'`, then try again.",
  },
  not_html: {
    title: "This is not a web page",
    text: "The file given as HTML is a binary file (an image, an archive, a program); the command line says so.",
    fix: "Give `pith extract` HTML files; the helper itself never reads files.",
  },
  cannot_write: {
    title: "Pith could not write its output",
    text: "A command-line job could not write where --out points (no permission, or the disk is full).",
    fix: "Free some space or choose another --out, then run the same command again.",
  },
  internal: {
    title: "Pith's helper failed on this page",
    text: "The helper hit a bug and went on serving.",
    fix: "Please report it with the helper's log (`pith doctor` shows where it is).",
  },
  page_unreadable: {
    title: "Pith cannot read this page",
    text: "The browser does not let extensions into this kind of page (browser settings, the web store, built-in viewers).",
    fix: "Open the article in a normal web page tab and try again.",
  },
  no_tab: {
    title: "No page to work on",
    text: "The tab is gone or was never given.",
    fix: "Open the page again and retry from its tab.",
  },
  no_content: {
    title: "No main content found",
    text: "Pith found no article text on this page.",
    fix: "If the page is still loading, wait and try again (each try reads the page afresh).",
  },
  page_changed: {
    title: "The page changed while Pith was reading it",
    text: "The page replaced its content before the result came back.",
    fix: "Try again.",
  },
  reader_failed: {
    title: "The reader view could not be opened",
    text: "The browser would not let Pith lay the reader view over this page.",
    fix: "Use Save to get the article as a file instead, or reload the page and try again.",
  },
  save_failed: {
    title: "The article could not be saved",
    text: "The browser refused the download.",
    fix: "Check the browser's download settings and try again.",
  },
  bad_action: {
    title: "Unknown action",
    text: "pith.run takes action \"reader\", \"highlight\" or \"save\".",
    fix: "Send one of those actions.",
  },
};

/** A failure with a stable code; `detail` is the technical reason, kept for the log and the message. */
export class PithFailure extends Error {
  constructor(code, detail = "") {
    const problem = PROBLEMS[code] || PROBLEMS.internal;
    super(`${problem.title}. ${problem.text}${detail ? ` (${detail})` : ""} ${problem.fix}`);
    this.code = code;
    this.detail = detail;
  }

  /** The `error` object of a `{ok: false}` reply: code, message (with the fix), and its parts for display. */
  toJSON() {
    const problem = PROBLEMS[this.code] || PROBLEMS.internal;
    return { code: this.code, message: this.message, title: problem.title, text: problem.text,
             fix: problem.fix, detail: this.detail };
  }
}

/** Any thrown value as a PithFailure (a bug in the extension becomes `internal`, never a silent failure). */
export function asFailure(error) {
  if (error instanceof PithFailure) return error;
  return new PithFailure("internal", String((error && error.message) || error));
}

/** Why a native port closed, from the browser's own message (Chromium's wording, then Firefox's). */
export function disconnectFailure(reason) {
  const text = String(reason || "");
  if (/not found|no such native application|manifest/i.test(text)) return new PithFailure("host_missing", text);
  if (/forbidden|not allowed|permission/i.test(text)) return new PithFailure("host_forbidden", text);
  if (/failed to start/i.test(text)) return new PithFailure("host_missing", text);
  return new PithFailure("host_crashed", text || "the connection closed");
}
