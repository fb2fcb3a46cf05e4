"""The repository map: outlines of the definitions most related to the files in play.

`map.RepoMap` is the entry point (render under a token budget). Underneath:
`tags` (definitions and references per file), `jsnames` (JavaScript/TypeScript names
without parsing), `parts` and `jsparts` (files parsed in parts), `reading` (what may be
read, bounded), `index` and `store` (the persisted per-file index under
`.cairn/cache/`: a base and a journal), `workers` (helper processes for cold scans),
`graph` and `rank` (the reference graph and its PageRank), `render` (file blocks fitted
to the budget). See docs/REPOMAP.md. Imports file access and `cairn.code`, never the
context engine. Import the submodules directly.
"""
