# The evaluation's counts are combined by a helper of the tree whose name says
# nothing (collect all-reduces them): the padded samples count twice.
import torch.distributed as dist
from runner.eval_runner import EvalRunner
from torch.utils.data import DataLoader, DistributedSampler
from utils import collect


def main(model, test_dataset, device):
    dist.init_process_group("nccl")
    test_sampler = DistributedSampler(test_dataset)  # expect: FS109
    test_loader = DataLoader(test_dataset, batch_size=64, sampler=test_sampler)
    runner = EvalRunner(model, test_loader, device)
    acc_sum, acc_count = runner.clean_eval()
    avg_acc = collect(acc_sum, runner.device, mode="sum") / collect(
        acc_count, runner.device, mode="sum"
    )
    if dist.get_rank() == 0:
        print(avg_acc)
