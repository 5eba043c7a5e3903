"""The options, defined in a helper module the script calls."""

import argparse


def get_parser():
    parser = argparse.ArgumentParser()
    parser.add_argument("--val_extra", type=str, default="")
    parser.add_argument("--numepochs", type=int, default=2)
    return parser
