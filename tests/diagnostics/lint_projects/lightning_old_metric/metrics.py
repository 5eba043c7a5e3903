# Lightning 0.9's TensorMetric: calling it all-reduces its output (a SUM) over the ranks.
import torch
from pytorch_lightning.metrics.metric import TensorMetric


class SpanF1(TensorMetric):
    def __init__(self):
        super().__init__(name="span_f1")

    def forward(self, pred, gold):
        return torch.stack([(pred & gold).sum(), (pred & ~gold).sum(), (~pred & gold).sum()])
