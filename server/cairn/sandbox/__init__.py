"""The command sandbox: what a shell command the agent runs may see, write and reach.

`run_command` asks `choose_sandbox` which sandbox applies (the `sandbox` and
`sandbox_network` settings, and a one-time probe of what works on this
machine: `probe`), and runs the command through `command_argv`, which wraps it
in bubblewrap when one does (`bubblewrap`): the workspace folders writable
(their `.cairn/` read-only), a private `/tmp`, the rest of the file system
read-only, secret paths hidden (`hidden`), no network unless allowed, its own
PID namespace (so killing the sandbox kills every process in it). What is and
is not covered: docs/SECURITY.md, "Command sandbox".
"""
