"""A turn's state, made when it starts: its inputs, its scope, the tools offered, its context builds and their prompt cache."""
