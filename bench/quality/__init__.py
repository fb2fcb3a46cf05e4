"""The context-quality bench (`python -m bench.quality`): its workspace, script, run and measures."""
