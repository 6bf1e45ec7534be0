"""Page titles and the file names they must give, shared by the Python (tests/test_files.py) and the
extension's (tests/test_extension_units.py) tests of safe_filename, so the two stay one rule."""

FILENAME_CASES = [
    ("Why the harbour lighthouse still runs", "Why the harbour lighthouse still runs.md"),
    ('a/b\\c:d*?"<>|e', "a b c d e.md"),
    ("../../etc/passwd", "etc passwd.md"),
    ("../../.bashrc", "bashrc.md"),
    ("~/.ssh/authorized_keys", "ssh authorized_keys.md"),
    ("  ...hidden  ", "hidden.md"),
    ("", "article.md"),
    (None, "article.md"),
    ("...", "article.md"),
    ("CON", "article CON.md"),
    ("con.tar", "article con.tar.md"),
    ("Lpt9", "article Lpt9.md"),
    ("COM¹", "article COM¹.md"),
    ("nul .txt", "article nul .txt.md"),
    ("Console", "Console.md"),
    ("Café – Ünïcode 🚀 title", "Café Ünïcode title.md"),
    ("x" * 300, "x" * 100 + ".md"),
    ("中" * 300, "中" * 66 + ".md"),          # 66 x 3 bytes: the 200-byte cap bites before 100 characters
    ("line\nbreak\ttab\u0000nul", "line break tab nul.md"),
    ("\u202egnp.exe", "gnp.exe.md"),          # the right-to-left override is dropped, not obeyed
    ("a\u200bb\ufeffc", "a b c.md"),
    ("trailing dots...", "trailing dots.md"),
    ("e\u0301", "\u00e9.md"),                 # NFC: one character, as macOS and Windows would store it
]
