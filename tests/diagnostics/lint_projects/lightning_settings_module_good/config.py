# Settings of the runs.
ACCELERATOR = "gpu"
DEVICES = [0]  # [0, 1] for two GPUs
