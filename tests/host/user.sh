#!/bin/bash
# User functions on the host (TAP): where this kernel has uprobes, the VM
# cases of tests/vm/cases/user.case run here too, without a guest; where
# it has none, each case says so as a skip.
set -u
cd "$(dirname "$0")/../.."
exec tests/vm/guest.sh -k host tests/vm/cases/user.case
