from accelerate import Accelerator
from torch.utils.data import DataLoader

from fairshard import DistributedSampler
from fairshard.integrations.accelerate import prepare_data_loader


def prepared(dataset):
    accelerator = Accelerator()
    plain = accelerator.prepare(DataLoader(dataset, batch_size=8, shuffle=True))
    ours = prepare_data_loader(
        accelerator, DataLoader(dataset, sampler=DistributedSampler(dataset))
    )
    return plain, ours
