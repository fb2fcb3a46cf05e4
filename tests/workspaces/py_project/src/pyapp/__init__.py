"""pyapp: greet people from the command line."""

from pyapp.greeting import greet

__all__ = ["greet"]
