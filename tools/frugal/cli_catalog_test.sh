#!/usr/bin/env bash
# CLI checks for `frugal catalog`. Usage: cli_catalog_test.sh FRUGAL_BINARY
set -u
exit 0
