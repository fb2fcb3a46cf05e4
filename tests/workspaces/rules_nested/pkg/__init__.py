"""Package root."""
