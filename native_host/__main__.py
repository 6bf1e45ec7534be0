"""`python -m native_host ...`: the same CLI as `pith`, for the launcher, which must not depend on PATH."""

import sys

from .cli.main import main

sys.exit(main())
