from pyapp.greeting import greet


def test_greet() -> None:
    assert greet("Ada") == "Hello, Ada!"


def test_greet_shout() -> None:
    assert greet("Ada", shout=True) == "HELLO, ADA!"
