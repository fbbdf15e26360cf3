"""`python -m playground.cli`: the same as the `playground` command."""

import sys

from playground.cli.main import main

sys.exit(main())
