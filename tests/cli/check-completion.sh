#!/usr/bin/env bash
# Drives packaging/completions/* the way bash (and zsh, when installed) call them, against the
# built clusterdeckctl and a throw-away store with two registered hosts.
# usage: check-completion.sh CLUSTERDECKCTL COMPLETIONS_DIR
set -euo pipefail
ctl=${1:?usage: check-completion.sh CLUSTERDECKCTL COMPLETIONS_DIR}
dir=${2:?usage: check-completion.sh CLUSTERDECKCTL COMPLETIONS_DIR}
fail() { echo "check-completion: FAIL: $*" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data
export CLUSTERDECK_STORE="sqlite://$work/state.db"
for h in h1 h2; do
    "$ctl" host add "$h" --docker "unix://$work/$h.sock" --no-check >/dev/null
done
mkdir -p "$work/bin" "$work/files"
ln -s "$ctl" "$work/bin/clusterdeckctl"
export PATH="$work/bin:$PATH"
template=$(cd "$(dirname "$0")/../.." && pwd)/templates/lab-basic.yaml
touch "$work/files/cluster.yaml" "$work/files/other.txt"

# One completion per line of input: the words (the last one is being typed), then what the
# candidates must be (sorted, space-separated).
cases=(
    "clusterdeckctl ho|host"
    "clusterdeckctl host ''|add import-contexts inspect ls rm trust"
    "clusterdeckctl host rm ''|h1 h2"
    "clusterdeckctl network ''|setup show"
    "clusterdeckctl network setup --driver ''|swarm vxlan"
    "clusterdeckctl launch x.yaml --mo|--mode --mount"
    "clusterdeckctl launch x.yaml --mode ''|auto multi-node single-node"
    "clusterdeckctl launch $template --count ''|master= worker="
    "clusterdeckctl export $template --format ''|compose jobset"
    "clusterdeckctl export $template --format jobset --count ''|master= worker="
    "clusterdeckctl --store $CLUSTERDECK_STORE host inspect h|h1 h2"
    "clusterdeckctl launch $work/files/cl|$work/files/cluster.yaml"
)

run_bash() { # MODE: plain (no bash-completion) or full (with its helpers, as on a desktop)
    local mode=$1 line words expected got
    for line in "${cases[@]}"; do
        words=${line%%|*}
        expected=${line#*|}
        got=$(bash --norc --noprofile -c '
            if [[ $1 == full ]]; then
                [[ -r /usr/share/bash-completion/bash_completion ]] || exit 0
                source /usr/share/bash-completion/bash_completion
            fi
            source "$2/clusterdeckctl.bash"
            eval "COMP_WORDS=($3)"
            COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
            COMP_LINE="${COMP_WORDS[*]}"
            COMP_POINT=${#COMP_LINE}
            _clusterdeckctl clusterdeckctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf "%s\n" "${COMPREPLY[@]}" | sort | xargs
        ' _ "$mode" "$dir" "$words" 2>&1)
        if [[ $mode == full && ! -r /usr/share/bash-completion/bash_completion ]]; then
            echo "check-completion: bash-completion is not installed: helpers not tried"
            return 0
        fi
        [[ $got == "$expected" ]] || fail "bash ($mode): '$words' gave '$got', not '$expected'"
    done
    echo "check-completion: bash ($mode): ${#cases[@]} cases ok"
}
run_bash plain
run_bash full

bash -n "$dir/clusterdeckctl.bash" || fail "bash -n"
if command -v zsh >/dev/null; then
    zsh -n "$dir/_clusterdeckctl" || fail "zsh -n"
    # compadd only works inside the completion system: replace it to print what it is given.
    got=$(zsh -f -c '
        compadd() { while [[ $1 == -* && $1 != -- ]]; do [[ $1 == -S ]] && shift; shift; done; shift; print -l -- "$@"; }
        _files() { print -- ":files"; }
        source "$1/_clusterdeckctl" 2>/dev/null
        words=(clusterdeckctl host rm "")
        CURRENT=4
        _clusterdeckctl
    ' _ "$dir" | sort | xargs)
    [[ $got == "h1 h2" ]] || fail "zsh: 'host rm' gave '$got'"
    got=$(zsh -f -c '
        compadd() { while [[ $1 == -* && $1 != -- ]]; do [[ $1 == -S ]] && shift; shift; done; shift; print -l -- "$@"; }
        source "$1/_clusterdeckctl" 2>/dev/null
        words=(clusterdeckctl launch "$2" --count "")
        CURRENT=5
        _clusterdeckctl
    ' _ "$dir" "$template" | sort | xargs)
    [[ $got == "master= worker=" ]] || fail "zsh: 'launch --count' gave '$got'"
    echo "check-completion: zsh: 2 cases ok"
else
    echo "check-completion: zsh is not installed: its script was not tried"
fi
echo "check-completion: PASS"
