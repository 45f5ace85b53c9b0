#!/usr/bin/env bash
# The CLI reference in docs/contracts.md is clusterdeckctl's own command table (app/cli/
# commandspec.cpp), printed by the hidden `clusterdeckctl help --markdown`, between the lines
# <!-- cli-reference:begin --> and <!-- cli-reference:end --> of the page.
#
# usage: cli-reference.sh [--check] [CLUSTERDECKCTL] [PAGE]
#   writes the current reference into PAGE; with --check changes nothing and exits 1 (showing the
#   difference) when PAGE's reference is not what CLUSTERDECKCTL prints (ctest cli_reference).
#   CLUSTERDECKCTL defaults to build/app/cli/clusterdeckctl, PAGE to docs/contracts.md.
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
check=0
if [[ ${1:-} == --check ]]; then
    check=1
    shift
fi
ctl=${1:-$src/build/app/cli/clusterdeckctl}
page=${2:-$src/docs/contracts.md}
begin='<!-- cli-reference:begin -->'
end='<!-- cli-reference:end -->'
fail() { echo "cli-reference: $*" >&2; exit 1; }

[[ -x $ctl ]] || fail "no clusterdeckctl at $ctl (build it, or name it: $0 [--check] CLUSTERDECKCTL [PAGE])"
[[ -r $page ]] || fail "cannot read $page"
[[ $(grep -cxF "$begin" "$page") == 1 && $(grep -cxF "$end" "$page") == 1 ]] ||
    fail "$page needs exactly one line '$begin' and one line '$end'"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$ctl" help --markdown >"$work/reference.md" || fail "$ctl help --markdown failed"
# The page with the block between the markers replaced by the reference (a blank line on each side,
# so that Markdown ends the last table before the end marker).
awk -v begin="$begin" -v end="$end" -v ref="$work/reference.md" '
    $0 == begin { print; print ""; while ((getline line < ref) > 0) print line; print ""; skip = 1; next }
    $0 == end { skip = 0 }
    !skip { print }
' "$page" >"$work/page.md"

if ((check)); then
    if ! diff -u --label "$page" --label "clusterdeckctl help --markdown" "$page" "$work/page.md"; then
        echo >&2
        fail "the CLI reference in $page is not the one clusterdeckctl prints (the command table in
app/cli/commandspec.cpp changed, or the page was edited by hand). Regenerate it with:
    scripts/cli-reference.sh $ctl $page
and commit the page."
    fi
    echo "cli-reference: $page matches clusterdeckctl help --markdown"
    exit 0
fi
if cmp -s "$page" "$work/page.md"; then
    echo "cli-reference: $page is up to date"
else
    cp "$work/page.md" "$page"
    echo "cli-reference: wrote the CLI reference into $page"
fi
