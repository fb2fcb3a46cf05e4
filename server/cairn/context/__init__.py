"""The context engine: sources → blocks → budget → selection → manifest → chat messages.

Every model call goes through `cairn.context.builder.ContextBuilder`, which
rebuilds the model's input from its sources under a hard token budget. This
package is pure core: it never imports pygls or lsprotocol, and writes
nothing (full texts of degraded blocks go through a `store_artifact` callback).
Import the submodules directly; this module re-exports nothing so that
importing one part stays cheap.
"""
