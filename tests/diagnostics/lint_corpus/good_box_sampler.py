"""Samplers that are not data samplers: draws per call, no index stream for a loader."""

from abc import ABCMeta, abstractmethod

import torch

from .base import ProposalSampler


class BaseSampler(metaclass=ABCMeta):
    """Picks positive and negative boxes per image (a detection head's sampler)."""

    @abstractmethod
    def _sample_pos(self, assign_result, num_expected):
        pass


class RandomBoxSampler(BaseSampler):
    def _sample_pos(self, assign_result, num_expected):
        pos = torch.nonzero(assign_result > 0).squeeze(1)
        return pos[torch.randperm(pos.numel())[:num_expected]]


class ScoreSampler(ProposalSampler):
    """Its base is imported from the tree and it has no ``__iter__``: not a data sampler."""

    def sample(self, proposals, num_expected):
        return proposals[torch.randperm(len(proposals))[:num_expected]]


def setup():
    torch.distributed.init_process_group("gloo")
