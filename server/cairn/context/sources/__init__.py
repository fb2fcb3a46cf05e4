"""Context sources owned by the context core, one module each.

Each module turns one kind of input (harness rules, mode, plan, diagnostics,
diff, buffers, profile, summary, the user message) into candidates for the
selection; none of them decides what fits.
"""
