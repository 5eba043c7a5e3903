# The evaluation's gathered total is only updated in place and never reported: the
# printed value is the last batch's, so accelerate's fill changes nothing shown.
from accelerate import Accelerator
from torch.utils.data import DataLoader


def main(model, test_set, epochs):
    accelerator = Accelerator()
    test_loader = accelerator.prepare(DataLoader(test_set, batch_size=8))
    for epoch in range(epochs):
        total_psnr = 0
        for data in test_loader:
            psnr = model(data)["psnr"]
            total_psnr += psnr.detach()
        total_psnr = accelerator.gather_for_metrics(total_psnr).mean()
        if accelerator.is_main_process:
            total_psnr /= len(test_loader)
            accelerator.print(f"[eval] epoch: {epoch} psnr: {psnr:.4f}")
