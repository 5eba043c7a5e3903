# The package re-exports its loader factory.
from .loaders import make_loader

__all__ = ["make_loader"]
