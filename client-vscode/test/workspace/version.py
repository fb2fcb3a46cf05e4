"""The version the tests bump through the agent (a file no editor has open)."""

VERSION = "0.1.0"
