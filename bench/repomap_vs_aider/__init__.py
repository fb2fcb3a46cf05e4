"""The repository map against Aider's (`python -m bench.repomap_vs_aider`) and its one-run driver."""
