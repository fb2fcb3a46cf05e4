"""`cairn acp`: the engine as an Agent Client Protocol v1 agent (Zed, JetBrains, Neovim, Emacs).

A sibling of `cairn.lsp` that only translates: ACP's session methods and
updates to and from the same `EngineApi` (`cairn.agent.api`). See
docs/ACP.md for the method mapping.
"""
