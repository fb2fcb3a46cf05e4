"""Entry point of the tiny app."""

from pkg.util import greet


def main() -> None:
    message = greet("world")
    print(message)


if __name__ == "__main__":
    main()
