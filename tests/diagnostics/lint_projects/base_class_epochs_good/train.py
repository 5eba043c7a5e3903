import argparse

from trainers.diffusion import DiffusionTrainer

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--distributed", action="store_true")
    parser.add_argument("--epochs", type=int, default=300)
    parser.add_argument("--path")
    parser.add_argument("--batch_size", type=int, default=8)
    DiffusionTrainer(parser.parse_args()).train()
