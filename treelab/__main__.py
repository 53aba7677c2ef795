"""``python -m treelab``: the same command line as ``treelab``."""

import sys

from treelab.cli import main

if __name__ == "__main__":
    sys.exit(main())
