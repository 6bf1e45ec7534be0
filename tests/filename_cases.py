"""Page titles and the file names they must give, shared by the Python (tests/test_files.py) and the
extension's (tests/test_files.py under Node, tests/test_extension_units.py in both browsers) tests of
safe_filename, so the two stay one rule."""

FILENAME_CASES = [
    ("Why the harbour lighthouse still runs", "Why the harbour lighthouse still runs.md"),
    ("The Future of Banking Is Here, and You're Broke", "The Future of Banking Is Here, and You're Broke.md"),
    (
        "It’s 5 o’clock — “quoted” & (kept) [too] #1 + 50% ~ $3!",
        "It’s 5 o’clock — “quoted” & (kept) [too] #1 + 50% ~ $3!.md",
    ),
    ('Clockwork: a "keeper"', "Clockwork - a 'keeper'.md"),
    ('a/b\\c:d*?"<>|e', "a b c d ' e.md"),
    ("../../etc/passwd", "etc passwd.md"),
    ("../../.bashrc", "bashrc.md"),
    ("~/.ssh/authorized_keys", "~ .ssh authorized_keys.md"),
    ("  ...hidden  ", "hidden.md"),
    ("", "article.md"),
    (None, "article.md"),
    ("...", "article.md"),
    ("CON", "article CON.md"),
    ("con.tar", "article con.tar.md"),
    ("Lpt9", "article Lpt9.md"),
    ("COM¹", "article COM¹.md"),
    ("CONIN$", "article CONIN$.md"),
    ("nul .txt", "article nul .txt.md"),
    ("Console", "Console.md"),
    ("Café – Ünïcode 🚀 title", "Café – Ünïcode 🚀 title.md"),
    ("x" * 300, "x" * 100 + ".md"),
    ("中" * 300, "中" * 66 + ".md"),  # 66 x 3 bytes: the 200-byte cap bites before 100 characters
    ("🚀" * 60, "🚀" * 50 + ".md"),  # 4 bytes each, cut between characters, never inside one
    ("line\nbreak\ttab\u0000nul", "line break tab nul.md"),
    ("\u202egnp.exe", "gnp.exe.md"),  # the right-to-left override is dropped, not obeyed
    ("a\u200bb\ufeffc\u00add", "abcd.md"),  # zero widths and the soft hyphen go: they are not spaces
    ("no\u00a0break\u2003em\u2028line", "no break em line.md"),
    ("می\u200cخواهم 👩\u200d💻", "می\u200cخواهم 👩\u200d💻.md"),  # the joiners stay: Persian, emoji sequences
    ("trailing dots...", "trailing dots.md"),
    ("ends with a space ", "ends with a space.md"),
    ("e\u0301", "\u00e9.md"),  # NFC: one character, as macOS and Windows would store it
]
