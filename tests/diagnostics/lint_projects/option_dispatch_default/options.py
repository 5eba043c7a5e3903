"""The command line: the mining mode defaults to random, drawn by hand on every rank."""

import argparse


def parse_arguments():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mining", type=str, default="random")
    parser.add_argument("--refresh", type=int, default=64)
    return parser.parse_args()
