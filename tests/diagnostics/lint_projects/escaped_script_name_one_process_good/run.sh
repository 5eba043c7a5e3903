#!/bin/bash
# every test run is one process
python FSC_test\(few-shot\).py --output_dir ./out/base --box_bound 3
