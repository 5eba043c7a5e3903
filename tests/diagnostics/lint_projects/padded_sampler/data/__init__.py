from .loader import create_loader

__all__ = ["create_loader"]
