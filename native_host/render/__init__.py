"""Every rendering of a result: what a `Result` becomes on its way out.

`formats` (the outputs of `pith extract -f`: text, Markdown, HTML, JSON, the blocks table), `document` (the
saved `.md` and `.txt` documents and their template, front matter included), `columns` (a corpus job's output
columns) and `reply` (the host's reply to the browser). The article's body itself (its HTML, Markdown and text)
is a stage of the pipeline (pipeline/article.py): the extractor builds it, timed, and only the views a caller
asks for; this room reads it and puts it in a shape.
"""
