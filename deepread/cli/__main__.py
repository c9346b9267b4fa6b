"""``python -m deepread.cli``: the ``deepread`` command without its console script."""

import sys

from deepread.cli.main import main

sys.exit(main())
