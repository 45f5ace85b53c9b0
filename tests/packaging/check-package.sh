#!/usr/bin/env bash
# Builds the .deb with CPack, checks its metadata and file list, installs it on this machine,
# runs what it installed, validates the desktop integration, and removes it again cleanly.
# usage: check-package.sh BUILD_DIR
set -euo pipefail
BUILD_DIR=${1:?usage: check-package.sh BUILD_DIR}
fail() { echo "check-package: FAIL: $*" >&2; exit 1; }

cd "$BUILD_DIR"
rm -f clusterdeck_*.deb
cpack -G DEB >/dev/null || fail "cpack failed"
deb=$(ls clusterdeck_*.deb 2>/dev/null | head -1)
[[ -n $deb ]] || fail "no .deb produced"
echo "check-package: built $deb ($(stat -c %s "$deb") bytes)"

info=$(dpkg-deb -I "$deb")
field() { echo "$info" | sed -n "s/^ $1: //p"; }
[[ $(field Package) == clusterdeck ]] || fail "Package is '$(field Package)'"
[[ -n $(field Version) ]] || fail "no Version"
depends=$(field Depends)
for lib in libqt6core6 libqt6widgets6 libcurl4 libyaml-cpp0.7 libsqlite3-0 qt6-qpa-plugins libqt6svg6; do
    [[ $depends == *"$lib"* ]] || fail "Depends lacks $lib: $depends"
done
[[ $depends != *docker* ]] || fail "Depends must not pull in docker: $depends"
[[ $(field Suggests) == *etcd-server* ]] || fail "Suggests lacks etcd-server"
echo "check-package: metadata ok (Depends: $depends)"

files=$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|')
expected=(
    /usr/bin/clusterdeck
    /usr/bin/clusterdeckctl
    /usr/share/applications/clusterdeck.desktop
    /usr/share/metainfo/io.clusterdeck.ClusterDeck.metainfo.xml
    /usr/share/icons/hicolor/scalable/apps/clusterdeck.svg
    /usr/share/icons/hicolor/48x48/apps/clusterdeck.png
    /usr/share/icons/hicolor/256x256/apps/clusterdeck.png
    /usr/share/man/man1/clusterdeckctl.1.gz
    /usr/share/doc/clusterdeck/README.md
    /usr/share/doc/clusterdeck/templates.md
    /usr/share/doc/clusterdeck/copyright
    /usr/share/clusterdeck/templates/lab-basic.yaml
    /usr/lib/systemd/system/clusterdeck-controller.service
    /usr/share/bash-completion/completions/clusterdeckctl
    /usr/share/zsh/vendor-completions/_clusterdeckctl
)
for f in "${expected[@]}"; do
    grep -qx "$f" <<<"$files" || fail "package lacks $f"
done
if grep -E '^/usr/(lib|include)/.*clusterdeck_core|/tests?/' <<<"$files"; then
    fail "package carries build or test files"
fi
echo "check-package: $(wc -l <<<"$files") entries, all ${#expected[@]} expected files present"

if [[ $EUID -ne 0 ]]; then
    echo "check-package: not root: skipping the install part" >&2
    exit 1
fi
dpkg -i "$deb" >/dev/null || fail "dpkg -i failed"
installed=$(dpkg -L clusterdeck)
/usr/bin/clusterdeckctl --version | grep -q "clusterdeckctl" || fail "installed clusterdeckctl --version"
n=0
for t in /usr/share/clusterdeck/templates/*.yaml; do
    /usr/bin/clusterdeckctl template validate "$t" >/dev/null || fail "installed sample $t does not validate"
    n=$((n + 1))
done
desktop-file-validate /usr/share/applications/clusterdeck.desktop || fail "desktop-file-validate"
appstreamcli validate --no-net /usr/share/metainfo/io.clusterdeck.ClusterDeck.metainfo.xml >/dev/null \
    || fail "appstreamcli validate"
zcat /usr/share/man/man1/clusterdeckctl.1.gz | grep -q '^.TH CLUSTERDECKCTL' || fail "man page"
# Shell completion as installed: bash-completion loads the file by the command's name.
got=$(bash --norc --noprofile -c '
    source /usr/share/bash-completion/completions/clusterdeckctl
    COMP_WORDS=(clusterdeckctl template re); COMP_CWORD=2
    COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
    _clusterdeckctl; echo "${COMPREPLY[*]}"')
[[ $got == render ]] || fail "installed bash completion gave '$got' for 'template re'"
if command -v zsh >/dev/null; then
    zsh -n /usr/share/zsh/vendor-completions/_clusterdeckctl || fail "zsh -n _clusterdeckctl"
fi
/usr/bin/clusterdeckctl launch --help | grep -q '^Usage: clusterdeckctl \[--store URL\] launch FILE' \
    || fail "installed clusterdeckctl launch --help"
echo "check-package: installed; --version ok, $n samples validate, desktop file and metainfo valid, completion answers"

dpkg --purge clusterdeck >/dev/null || fail "dpkg --purge failed"
left=0
while read -r f; do
    [[ -f $f ]] && { echo "left behind: $f" >&2; left=$((left + 1)); }
done <<<"$installed"
[[ $left -eq 0 ]] || fail "$left files left after purge"
dpkg -s clusterdeck >/dev/null 2>&1 && fail "still registered with dpkg"
echo "check-package: purged cleanly"
echo "check-package: PASS"
