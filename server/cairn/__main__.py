"""Entry point for `python -m cairn` (same as the `cairn` console script)."""

from cairn.cli import main

if __name__ == "__main__":
    main()
