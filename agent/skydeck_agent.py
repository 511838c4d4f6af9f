#!/usr/bin/env python3
"""Skydeck head-node agent: job queue, drivers, liveness, logs.

Uploaded with its sibling package directory and run as
`python3 skydeck_agent.py [--base DIR] COMMAND ...`; see README.md.
Standard library only, Python >= 3.8.
"""
import os
import sys

# The package lives next to this file; the uploaded directory is not installed anywhere.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from skydeck_agent_lib.cli import main  # noqa: E402

if __name__ == '__main__':
    sys.exit(main(sys.argv[1:], os.path.abspath(__file__)))
