#!/usr/bin/env bash
# Runs a lab test against the lab ctest gave it. scripts/test.sh brings up several independent labs
# (scripts/lab.sh, CLUSTERDECK_LAB_ID 0, 1, …) and hands ctest a resource spec with one "labs" slot
# per lab; every lab test asks for one (RESOURCE_GROUPS labs:1, tests/CMakeLists.txt), so two lab
# tests never share a lab and two labs halve the serial chain. ctest names the slot in
# CTEST_RESOURCE_GROUP_0_LABS ("id:1,slots:1"); this exports that lab's endpoints and runs the test.
# The slot "caller" (tests/labs.json, the default of a plain `ctest`: one lab) and no slot at all
# (the test run by hand) mean the lab in the caller's environment.
#   scripts/on-lab.sh COMMAND [ARGS…]
set -euo pipefail
slot=${CTEST_RESOURCE_GROUP_0_LABS:-}
if [[ -n $slot && $slot != id:caller,* ]]; then
    id=${slot#id:}
    id=${id%%,*}
    if [[ $id != "${CLUSTERDECK_LAB_ID:-0}" || -z ${CLUSTERDECK_LAB_HOSTS:-} ]]; then
        env=$(CLUSTERDECK_LAB_ID=$id "$(dirname "${BASH_SOURCE[0]}")/lab.sh" env) ||
            { echo "on-lab: lab $id is not up (CLUSTERDECK_LAB_ID=$id scripts/lab.sh up)" >&2; exit 1; }
        eval "$env"
    fi
fi
# A test killed (ctest's timeout) while it held a lab daemon frozen must not fail the next one.
CLUSTERDECK_LAB_ID=${CLUSTERDECK_LAB_ID:-0} "$(dirname "${BASH_SOURCE[0]}")/lab.sh" resume >&2 || true
exec "$@"
