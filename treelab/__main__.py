"""``python -m treelab``: the same command line as ``treelab``."""

from treelab.cli import console

if __name__ == "__main__":
    console()
