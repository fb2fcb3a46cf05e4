"""The greeting itself."""


def greet(name: str, *, shout: bool = False) -> str:
    """A greeting for `name`."""
    text = f"Hello, {name}!"
    return text.upper() if shout else text
