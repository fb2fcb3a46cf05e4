"""The context engine: sources → blocks → budget → selection → manifest → chat messages.

Every model call goes through `cairn.context.builder.ContextBuilder`, which
rebuilds the model's input from its sources under a hard token budget. This
package is pure core: it never imports pygls or lsprotocol and opens no file
for writing. Its reads are the sources' (editor buffers and files, `git diff
HEAD` as a subprocess). A build still causes writes through what the caller
hands it: the full text of a degraded block goes to the `store_artifact`
callback (the session's trace; none in a dry run), and the repository map and
the project profile keep their own index and document (`cairn.repomap`,
`cairn.profile`). Import the submodules directly; this module re-exports
nothing so that importing one part stays cheap.
"""
