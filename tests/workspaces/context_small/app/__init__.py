"""A tiny app used by the context builder tests."""
