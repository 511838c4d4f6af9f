"""Skydeck head-node agent (stdlib only, Python >= 3.8)."""

VERSION = '0.1.0'
# Bumped when a request or response shape changes incompatibly.
PROTOCOL = 2
