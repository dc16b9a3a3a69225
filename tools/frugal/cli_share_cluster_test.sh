source "$(dirname "$0")/cli_test_lib.sh" "$1"
