"""Real stand-ins for outside services, shared by tests and benches (a local OpenAI-compatible server)."""
