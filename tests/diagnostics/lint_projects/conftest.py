# The folders here are small projects for `fairshard lint DIR`: parsed, never imported.
# Each marks the findings it must produce with an `# expect: CODE` comment on the line.
collect_ignore_glob = ["*/*.py", "*/*/*.py", "*/*/*/*.py"]
