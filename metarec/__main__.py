"""``python -m metarec``: the command-line interface."""

from metarec.cli import main

if __name__ == "__main__":
    main()
