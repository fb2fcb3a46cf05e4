"""Cairn's benchmarks, each an entry point: `python -m bench.<name>` (see `bench/README.md`)."""
