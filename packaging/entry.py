"""Entry point of the frozen app (PyInstaller runs this file as __main__)."""

import multiprocessing
import sys

from explorer.__main__ import main

if __name__ == "__main__":
    # Training, corpus statistics and the efficiency table run in child processes started with
    # 'spawn': in the bundle the child is this executable again, and freeze_support() turns it
    # into that child instead of a second window.
    multiprocessing.freeze_support()
    sys.exit(main())
