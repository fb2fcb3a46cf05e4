"""File access: the workspace's folders and open buffers, and every gate on reading a file.

`workspace` (folders, buffers, diagnostics, path confinement), `buffers`
(incremental edits of open documents), `text` (content hashes, UTF-16
positions), `reading` (resolving without crashing on symlink loops, reading
only regular files, bounded before reading), `ignore` (which files exist for
the agent: `.gitignore` and fixed exclusions), `secrets` (which paths are
secret: built-in names and the user's lists), `redaction` (secret values
found by detect-secrets and replaced), `guard` (the gate every named path
passes: outside, link loop, secret, ignored, special, binary, too large),
`rules` (which `AGENTS.md` files apply, and their hashes), `languages` (the
one extension → language / grammar table) and `sync` (keeping the cached
listings and the repository map current).
Below the context engine, the repository map and the profile: nothing here
imports them. Import the submodules directly.
"""
