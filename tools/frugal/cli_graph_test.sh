#!/usr/bin/env bash
# CLI checks for `frugal graph`. Usage: cli_graph_test.sh FRUGAL_BINARY
set -u
exit 0
