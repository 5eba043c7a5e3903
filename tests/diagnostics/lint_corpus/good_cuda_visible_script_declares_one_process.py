# An inference script that pins one GPU and declares itself one process (WORLD_SIZE=1)
# before accelerate builds its state: nothing else shares the GPU.
import os

os.environ["CUDA_VISIBLE_DEVICES"] = "0"
os.environ["WORLD_SIZE"] = "1"

from accelerate import Accelerator
from torch.utils.data import DataLoader


def main(model, prompts):
    accelerator = Accelerator()
    accelerator.wait_for_everyone()
    return [model(batch) for batch in DataLoader(prompts, batch_size=4)]


if __name__ == "__main__":
    main(print, ["a"])
