"""parse_args is here: the script runs, and its epochs repeat one order."""

import argparse


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    return parser.parse_args()
