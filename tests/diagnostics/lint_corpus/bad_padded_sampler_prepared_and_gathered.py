# One evaluation, its padding reported once: a padded DistributedSampler in a loader that
# accelerate also prepares, whose per-rank sum is gathered after the loop. The sampler is the
# padding's finding; the gather of the same evaluation is not a second one. The prepare is
# another defect (FS115): accelerate splits each rank's share again.
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, DistributedSampler
from tqdm import tqdm


def evaluate(accelerator, model, dataset):
    sampler = DistributedSampler(  # expect: FS109
        dataset,
        num_replicas=accelerator.num_processes,
        rank=accelerator.process_index,
        shuffle=False,
    )
    loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    loader = accelerator.prepare(loader)  # expect: FS115
    total = 0.0
    with torch.no_grad():
        progress = tqdm(loader)
        for x, y in progress:
            total += torch.nn.functional.mse_loss(model(x), y).item()
    return accelerator.gather(torch.tensor(total)).mean().item() / len(loader)


def main(model, dataset):
    accelerator = Accelerator()
    model = accelerator.prepare(model)
    print(evaluate(accelerator, model, dataset))
