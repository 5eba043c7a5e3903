"""Runs the fine-tuning script by plain python: the only shipped line that runs it."""

import subprocess

subprocess.run("python ./run_glue.py --epochs 3 --do_predict", shell=True, check=True)
