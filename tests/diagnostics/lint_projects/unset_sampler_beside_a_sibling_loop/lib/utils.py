"""A helper both scripts import: it shares no loader between them."""


def log(*values):
    print(*values)
