# One entry point picks the builder; it hands the builder's tuple back as it is.
from .data_finetune import build_loader_finetune
from .data_pretrain import build_loader_pretrain


def build_loader(config, is_pretrain):
    if is_pretrain:
        return build_loader_pretrain(config)
    return build_loader_finetune(config)
