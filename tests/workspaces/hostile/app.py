"""A harmless module next to the hostile files."""


def greet(name: str) -> str:
    return f"hello {name}"
