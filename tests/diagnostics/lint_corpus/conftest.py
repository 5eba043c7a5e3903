# The scripts in this folder are inputs for `fairshard lint`: parsed, never imported.
# Each marks the findings it must produce with an `# expect: CODE` comment on the line.
collect_ignore_glob = ["bad_*.py", "good_*.py", "tests/*.py"]
