"""The prompt-cache bench (`python -m bench.cache`): its scripted session, accounting and peers."""
