"""A small module the tests attach diagnostics to."""


def greet(name: str) -> str:
    return "hello " + name
