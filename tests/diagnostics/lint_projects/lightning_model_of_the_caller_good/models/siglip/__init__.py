from models.siglip.siglip import SiglipModel

__all__ = ["SiglipModel"]
