#!/usr/bin/env bash
# CLI checks for `frugal place`. Usage: cli_place_test.sh FRUGAL_BINARY
set -u
exit 0
