# The scripts in this folder are inputs for `fairshard lint`: parsed, never imported.
collect_ignore_glob = ["fs*.py"]
