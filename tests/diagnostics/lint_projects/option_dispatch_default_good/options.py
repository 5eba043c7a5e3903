"""The command line: the mining mode defaults to partial_sep, and no launch line changes it."""

import argparse


def parse_arguments():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mining", type=str, default="partial_sep")
    parser.add_argument("--refresh", type=int, default=64)
    return parser.parse_args()
