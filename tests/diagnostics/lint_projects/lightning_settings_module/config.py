# Settings of the runs.
ACCELERATOR = "gpu"
DEVICES = [0, 1]
