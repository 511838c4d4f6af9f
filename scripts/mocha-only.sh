#!/bin/sh
# Runs mocha on just the given files/dirs (the repo's .mocharc lists every suite).
exec npx mocha --no-config --node-option import=tsx --extension ts --timeout 60000 "$@"
