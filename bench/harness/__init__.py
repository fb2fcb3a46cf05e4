"""What every benchmark shares: paths, machine facts, timing, records and the one results writer.

A benchmark builds a `Run` (its figures, the command that reproduces them, the
machine, the commit) and hands it to `writer.record`, which appends it to
`bench/history/<benchmark>.jsonl` and regenerates `bench/RESULTS.md`.
"""
