from .loader import create_loader
