"""`python -m native_host ...`: the same CLI as `pith`, for the launcher, which must not depend on PATH."""

import sys

from .cli.main import main

if __name__ == "__main__":  # a worker process started by forkserver or spawn imports this module again
    sys.exit(main())
