#!/bin/bash
# The arm64 VM suite: tests/vm/run.sh with ARCH=arm64 (its arch table,
# tests/vm/arch.sh, has the kernels, cases, timeouts and the build step).
#   tests/arm64/run.sh [-t REGEX] [-v] [CASEFILE...]
exec env ARCH=arm64 "$(dirname "$0")/../vm/run.sh" "$@"
