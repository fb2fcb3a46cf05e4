"""The contract generator's parts: JSON schema → TypeScript, the settings contribution.

`tools/gen_contracts.py` puts them together; nothing here is imported by the server.
"""
