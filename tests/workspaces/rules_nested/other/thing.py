"""Unrelated code whose rules must not leak into pkg."""


def other() -> str:
    return "other"
