"""The repository map: outlines of the definitions most related to the files in play.

`map.RepoMap` is the entry point (render under a token budget). Underneath:
`tags` (definitions and references per file), `parts` (Python files parsed in
parts), `index` (the persisted per-file index under `.cairn/cache/`),
`workers` (helper processes for cold scans), `graph` and `rank` (the
reference graph and its PageRank), `render` (file blocks fitted to the
budget). See docs/REPOMAP.md. Imports file access and `cairn.code`, never the
context engine. Import the submodules directly.
"""
