#!/usr/bin/env bash
# CLI checks for `frugal cache`. Usage: cli_cache_test.sh FRUGAL_BINARY
set -u
exit 0
