#!/usr/bin/env bash
# Installs, with apt, every package the build, the tests, the lab and the demo need — only those
# that are missing. Safe to run again and again.
set -euo pipefail

PACKAGES=(
    # build
    build-essential cmake ninja-build pkg-config git
    qt6-base-dev qt6-base-dev-tools qt6-svg-dev libvterm-dev
    qt6-charts-dev libqt6opengl6-dev # Qt6Charts.cmake needs Qt6OpenGL, which Debian does not pull in
    libcurl4-openssl-dev libyaml-cpp-dev libsqlite3-dev libarchive-dev libssl-dev
    clang-format clang-16 libclang-rt-16-dev
    # the lab: Docker hosts in network namespaces, etcd, the lab image's contents
    docker.io etcd-server etcd-client busybox-static dropbear-bin openssh-client
    openssh-server # an sshd per lab host for ssh:// endpoints (run by lab.sh, never as a service)
    openmpi-bin # mpirun and orted for the lab's Open MPI image (the mpi sample's tests)
    python3-torch # PyTorch 1.13 (CPU) for the lab's PyTorch image (the pytorch sample's test)
    iproute2 iptables openssl util-linux procps ca-certificates curl
    # the lab registry (TLS + htpasswd) for pull tests
    docker-registry apache2-utils
    # GUI tests, screenshots, the demo
    xvfb xauth imagemagick
    # the export test: clusterdeckctl export's JobSets and Compose files against their schemas
    python3-jsonschema python3-yaml
    # packaging checks
    desktop-file-utils appstream dpkg-dev file librsvg2-bin
    # the completion scripts' test drives them in both shells, with bash-completion's helpers
    zsh bash-completion
)

missing=()
for pkg in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$pkg")
    fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
    echo "setup: all ${#PACKAGES[@]} packages present"
    exit 0
fi

if [[ $EUID -ne 0 ]]; then
    echo "setup: error: missing packages (${missing[*]}) and not root; run: sudo $0" >&2
    exit 1
fi

echo "setup: installing ${#missing[@]} missing packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# --no-install-recommends keeps docker.io from pulling in things the lab does not use;
# the policy-rc.d guard keeps apt from trying to start a system dockerd we do not want.
policy=/usr/sbin/policy-rc.d
guard=0
if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy"
    chmod +x "$policy"
    guard=1
fi
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
[[ $guard -eq 1 ]] && rm -f "$policy"
echo "setup: done"
