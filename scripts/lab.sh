#!/usr/bin/env bash
# The lab: turns this one machine into N Docker hosts plus etcd, for tests and the demo.
#
#   scripts/lab.sh up [--hosts N] [--no-swarm] [--etcd-members 1|3|5]
#                                   start (cleaning whatever a killed earlier run left behind);
#                                   --no-swarm leaves the hosts out of any swarm; --etcd-members
#                                   makes the plain etcd a cluster of that many members on loopback
#   scripts/lab.sh etcd-member kill|start|leader [I]
#                                   kill -9 / restart member I of that cluster; `leader` prints
#                                   the number of the member that leads
#   scripts/lab.sh dockerd stop|start|pid I
#                                   stop (SIGTERM, as a crashed or stopped daemon) / start again
#                                   the dockerd of host hI; `pid` prints its pid (for SIGSTOP)
#   scripts/lab.sh pytorch-image    import clusterdeck/lab-pytorch (Debian's CPU torch, for the
#                                   pytorch sample's test) into every host that lacks it; its tar
#                                   is built once a machine (`up` builds it) and cached
#   scripts/lab.sh resume           SIGCONT every daemon of the lab (dockerd, sshd, etcd): what a
#                                   test killed while it held one frozen (SIGSTOP) left stopped;
#                                   scripts/on-lab.sh runs it before every lab test
#   scripts/lab.sh down             remove everything `up` made
#   scripts/lab.sh status           report each host and etcd
#   scripts/lab.sh env              print `export …` lines for the endpoints (eval "$(lab.sh env)")
#
# Each host hN is a network namespace `cdlab-hN` with its own dockerd (data-root, exec-root, socket,
# pidfile, bridge subnet), an address 192.168.213.1N on the bridge `cdlab0` reachable from the root
# namespace, a TLS listener on that address, and an OpenSSH server on port 22 of it (key login as
# root with the lab's client key; `ssh://root@<address><socket>` reaches the dockerd). All hosts form one swarm with h1 as manager
# (unless `up --no-swarm`: then no host is in a swarm, e.g. to test `clusterdeckctl network setup`).
# A Docker registry (Debian's docker-registry, TLS from the lab CA, htpasswd) listens on the bridge
# address, port 5000; every lab dockerd trusts it through /etc/docker/certs.d/<address>:5000/ca.crt.
# It holds the lab image and a registry-only tag (the lab image plus ~48 MB) that no host has.
set -euo pipefail

# CLUSTERDECK_LAB_ID=N (0-9) runs an independent lab beside the default one (own names, subnet,
# ports, directories), e.g. to run CI from a clean clone while a development lab is up.
readonly LAB_ID=${CLUSTERDECK_LAB_ID:-0}
[[ $LAB_ID =~ ^[0-9]$ ]] || { echo "lab: error: CLUSTERDECK_LAB_ID must be 0-9" >&2; exit 2; }
if [[ $LAB_ID -eq 0 ]]; then suffix=""; else suffix="-$LAB_ID"; fi
readonly LAB_RUN=${CLUSTERDECK_LAB_RUN:-/run/cdlab$suffix}       # sockets, pidfiles, exec roots, pki
readonly LAB_DATA=${CLUSTERDECK_LAB_DATA:-/var/lib/cdlab$suffix} # docker data roots, etcd data
readonly SRC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly BRIDGE=cdlab$LAB_ID
readonly SUBNET_PREFIX=192.168.$((213 + LAB_ID))
readonly BRIDGE_ADDR=${SUBNET_PREFIX}.1
if [[ $LAB_ID -eq 0 ]]; then NS_PREFIX=cdlab-; VETH_PREFIX=cdl-h; else NS_PREFIX=cdl$LAB_ID-; VETH_PREFIX=cdl$LAB_ID-h; fi
readonly NS_PREFIX VETH_PREFIX
readonly ETCD_PORT=$((23790 + 100 * LAB_ID))
readonly ETCD_PEER_PORT=$((ETCD_PORT + 1))
readonly ETCD_AUTH_PORT=$((ETCD_PORT + 10))
readonly ETCD_AUTH_PEER_PORT=$((ETCD_PORT + 11))
readonly IMAGE=clusterdeck/lab:latest
# The lab image plus Open MPI (mpirun, orted, their plugins and libraries) for the mpi sample's tests.
readonly MPI_IMAGE=clusterdeck/lab-mpi:latest
# The lab image plus Debian's PyTorch (python3-torch 1.13, CPU only) for the pytorch sample's test.
readonly PYTORCH_IMAGE=clusterdeck/lab-pytorch:latest
# Image tars too slow to build at every `up` (the PyTorch one: ~40 s of ldd and copying) are kept
# here across `up`/`down`, shared by every lab id, and rebuilt when what they are made of changes.
readonly IMAGE_CACHE=${CLUSTERDECK_LAB_CACHE:-/var/cache/cdlab}
readonly REGISTRY=${BRIDGE_ADDR}:5000
readonly REGISTRY_USER=cdlab
readonly REGISTRY_ONLY_IMAGE=$REGISTRY/clusterdeck/lab:remote
# dockerd reads registry CAs from this fixed folder; one sub-folder per lab (the address differs).
readonly CERTS_D=/etc/docker/certs.d/$REGISTRY
readonly IPT_COMMENT=clusterdeck-lab$suffix

log() { printf 'lab: %s\n' "$*" >&2; }
die() { printf 'lab: error: %s\n' "$*" >&2; exit 1; }

host_count() { cat "$LAB_RUN/hosts" 2>/dev/null || echo 0; }
host_addr() { echo "${SUBNET_PREFIX}.$((10 + $1))"; }
host_sock() { echo "$LAB_RUN/h$1/docker.sock"; }
hdocker() { local i=$1; shift; docker -H "unix://$(host_sock "$i")" "$@"; }

# --- stopping and cleaning -------------------------------------------------------------------

# Stops the process whose pid is in FILE (never by name: other dockerds on this machine are not ours).
stop_pidfile() {
    local file=$1 pid
    [[ -f $file ]] || return 0
    pid=$(cat "$file" 2>/dev/null || true)
    if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 1 150); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        if kill -0 "$pid" 2>/dev/null; then
            log "pid $pid ($file) did not stop in 15s, killing it"
            kill -KILL "$pid" 2>/dev/null || true
            sleep 0.5
        fi
    fi
    rm -f "$file"
}

# Processes still running inside one of our namespaces (containerd shims, container processes).
kill_netns_pids() {
    local ns=$1 pids
    pids=$(ip netns pids "$ns" 2>/dev/null || true)
    [[ -n $pids ]] || return 0
    kill -TERM $pids 2>/dev/null || true
    sleep 1
    pids=$(ip netns pids "$ns" 2>/dev/null || true)
    [[ -z $pids ]] || kill -KILL $pids 2>/dev/null || true
}

unmount_under() {
    local dir=$1
    [[ -d $dir ]] || return 0
    # deepest first
    awk -v d="$dir" '$2 == d || index($2, d "/") == 1 { print $2 }' /proc/self/mounts | sort -r |
        while read -r m; do umount -l "$m" 2>/dev/null || true; done
}

remove_iptables_rules() {
    local table chain
    for table in filter nat; do
        # Delete every rule carrying our comment, by its spec, until none are left.
        while read -r rule; do
            [[ -n $rule ]] || continue
            eval "iptables -t $table ${rule/-A /-D }" 2>/dev/null || break
        done < <(iptables -t "$table" -S 2>/dev/null | grep -- "--comment $IPT_COMMENT " || true)
    done
}

cmd_down() {
    local n ns i
    n=$(host_count)
    # Stop every daemon we have a pidfile for, even of more hosts than the last `up` recorded.
    for pidfile in "$LAB_RUN"/h*/docker.pid "$LAB_RUN"/h*/sshd.pid; do
        [[ -e $pidfile ]] || continue
        stop_pidfile "$pidfile"
    done
    stop_pidfile "$LAB_RUN/etcd.pid"
    for pidfile in "$LAB_RUN"/etcd-m*.pid; do
        [[ -e $pidfile ]] || continue
        stop_pidfile "$pidfile"
    done
    stop_pidfile "$LAB_RUN/etcd-auth.pid"
    stop_pidfile "$LAB_RUN/registry.pid"
    rm -rf "$CERTS_D"
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^${NS_PREFIX}" || true); do
        kill_netns_pids "$ns"
        ip netns delete "$ns" 2>/dev/null || true
    done
    for link in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1 | grep "^$VETH_PREFIX" || true); do
        ip link delete "$link" 2>/dev/null || true
    done
    ip link delete "$BRIDGE" 2>/dev/null || true
    remove_iptables_rules
    unmount_under "$LAB_RUN"
    unmount_under "$LAB_DATA"
    rm -rf "$LAB_RUN" "$LAB_DATA"
    [[ $n -gt 0 ]] && log "down: removed $n hosts, etcd, registry, bridge, namespaces" || log "down: nothing left"
    return 0
}

# --- starting ----------------------------------------------------------------------------------

make_pki() {
    local pki=$LAB_RUN/pki n=$1 i san
    mkdir -p "$pki"
    (
        cd "$pki"
        openssl genrsa -out ca-key.pem 2048 2>/dev/null
        openssl req -x509 -new -key ca-key.pem -days 30 -subj "/CN=ClusterDeck lab CA" -out ca.pem 2>/dev/null
        san="IP:127.0.0.1,DNS:localhost"
        for i in $(seq 1 "$n"); do san+=",IP:$(host_addr "$i"),DNS:h$i"; done
        openssl genrsa -out server-key.pem 2048 2>/dev/null
        openssl req -new -key server-key.pem -subj "/CN=cdlab-server" -out server.csr 2>/dev/null
        printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth,clientAuth\n' "$san" > server.ext
        openssl x509 -req -in server.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 30 \
            -extfile server.ext -out server-cert.pem 2>/dev/null
        # The registry's certificate, for the bridge address the hosts reach it on.
        openssl genrsa -out registry-key.pem 2048 2>/dev/null
        openssl req -new -key registry-key.pem -subj "/CN=cdlab-registry" -out registry.csr 2>/dev/null
        printf 'subjectAltName=IP:%s\nextendedKeyUsage=serverAuth\n' "$BRIDGE_ADDR" > registry.ext
        openssl x509 -req -in registry.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 30 \
            -extfile registry.ext -out registry-cert.pem 2>/dev/null
        openssl genrsa -out client-key.pem 2048 2>/dev/null
        openssl req -new -key client-key.pem -subj "/CN=cdlab-client" -out client.csr 2>/dev/null
        printf 'extendedKeyUsage=clientAuth\n' > client.ext
        openssl x509 -req -in client.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 30 \
            -extfile client.ext -out cert.pem 2>/dev/null
        cp client-key.pem key.pem
        # A second, unrelated CA: tests use it to prove a wrong CA is refused.
        openssl genrsa -out wrong-ca-key.pem 2048 2>/dev/null
        openssl req -x509 -new -key wrong-ca-key.pem -days 30 -subj "/CN=Not the lab CA" \
            -out wrong-ca.pem 2>/dev/null
        rm -f ./*.csr ./*.ext ./*.srl
        chmod 600 ./*key.pem
    )
}

make_network() {
    local n=$1 i ns addr
    ip link add "$BRIDGE" type bridge
    ip addr add "$BRIDGE_ADDR/24" dev "$BRIDGE"
    ip link set "$BRIDGE" up
    for i in $(seq 1 "$n"); do
        ns=${NS_PREFIX}h$i
        addr=$(host_addr "$i")
        ip netns add "$ns"
        ip link add "$VETH_PREFIX$i" type veth peer name eth0 netns "$ns"
        ip link set "$VETH_PREFIX$i" master "$BRIDGE" up
        ip -n "$ns" addr add "$addr/24" dev eth0
        ip -n "$ns" link set lo up
        ip -n "$ns" link set eth0 up
        ip -n "$ns" route add default via "$BRIDGE_ADDR"
    done
    # With br_netfilter loaded, bridged frames between namespaces cross the root FORWARD chain,
    # where a DROP policy (set by a Docker daemon, for one) would cut the hosts off each other.
    iptables -I FORWARD -i "$BRIDGE" -o "$BRIDGE" -m comment --comment "$IPT_COMMENT" -j ACCEPT
    iptables -I FORWARD -i "$BRIDGE" -m comment --comment "$IPT_COMMENT" -j ACCEPT
    iptables -I FORWARD -o "$BRIDGE" -m comment --comment "$IPT_COMMENT" -j ACCEPT
}

start_dockerd() {
    local i=$1 ns=${NS_PREFIX}h$1 dir=$LAB_RUN/h$1 addr pki=$LAB_RUN/pki
    addr=$(host_addr "$i")
    mkdir -p "$dir/exec" "$LAB_DATA/h$i"
    # nsenter keeps /sys as it is; `ip netns exec` would remount it and hide the cgroups.
    # setsid: the daemons outlive this script and a Ctrl-C in the caller's terminal.
    setsid nsenter --net=/var/run/netns/"$ns" \
        dockerd \
        --data-root "$LAB_DATA/h$i" \
        --exec-root "$dir/exec" \
        --pidfile "$dir/docker.pid" \
        -H "unix://$dir/docker.sock" \
        -H "tcp://$addr:2376" \
        --tlsverify --tlscacert "$pki/ca.pem" --tlscert "$pki/server-cert.pem" --tlskey "$pki/server-key.pem" \
        --bip "172.30.$i.1/24" \
        --default-address-pool "base=172.31.$((i * 16)).0/20,size=24" \
        --storage-driver overlay2 \
        --log-level warn \
        --userland-proxy=false \
        >"$dir/dockerd.log" 2>&1 &
}

# An OpenSSH server in each host's namespace, for ssh:// endpoints: key login only (a client key
# made here), its host key in a known_hosts beside an ssh_config the tests and the demo use
# (CLUSTERDECK_LAB_SSH_CONFIG), and Unix socket forwarding to the host's dockerd socket.
make_ssh() {
    local n=$1 i dir=$LAB_RUN/ssh addr
    mkdir -p "$dir" /run/sshd
    chmod 700 "$dir"
    ssh-keygen -q -t ed25519 -N '' -C cdlab-client -f "$dir/client_key"
    cp "$dir/client_key.pub" "$dir/authorized_keys"
    : >"$dir/known_hosts"
    for i in $(seq 1 "$n"); do
        addr=$(host_addr "$i")
        ssh-keygen -q -t ed25519 -N '' -C "cdlab-h$i" -f "$LAB_RUN/h$i/ssh_host_ed25519_key"
        echo "$addr $(cut -d' ' -f1,2 "$LAB_RUN/h$i/ssh_host_ed25519_key.pub")" >>"$dir/known_hosts"
        cat >"$LAB_RUN/h$i/sshd_config" <<EOF2
ListenAddress $addr:22
HostKey $LAB_RUN/h$i/ssh_host_ed25519_key
PidFile $LAB_RUN/h$i/sshd.pid
AuthorizedKeysFile $dir/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
AllowStreamLocalForwarding yes
AllowTcpForwarding local
X11Forwarding no
MaxSessions 64
MaxStartups 64:30:128
LogLevel ERROR
EOF2
    done
    cat >"$dir/config" <<EOF2
Host ${SUBNET_PREFIX}.*
    User root
    IdentityFile $dir/client_key
    IdentitiesOnly yes
    UserKnownHostsFile $dir/known_hosts
    GlobalKnownHostsFile /dev/null
    StrictHostKeyChecking yes
    ConnectTimeout 10
EOF2
}

start_sshd() {
    local i=$1 ns=${NS_PREFIX}h$1
    setsid nsenter --net=/var/run/netns/"$ns" /usr/sbin/sshd -f "$LAB_RUN/h$i/sshd_config" \
        -E "$LAB_RUN/h$i/sshd.log"
}

wait_for() {
    local what=$1 tries=$2
    shift 2
    for _ in $(seq 1 "$tries"); do
        if "$@" >/dev/null 2>&1; then return 0; fi
        sleep 0.2
    done
    die "$what did not come up (see logs under $LAB_RUN)"
}

etcd_members() { cat "$LAB_RUN/etcd-members" 2>/dev/null || echo 1; }
# Member 1 keeps the lab's etcd port; members 2.. listen 20 ports above it, two ports apart.
etcd_client_port() { if [[ $1 -eq 1 ]]; then echo "$ETCD_PORT"; else echo $((ETCD_PORT + 16 + 2 * $1)); fi; }
etcd_peer_port() { if [[ $1 -eq 1 ]]; then echo "$ETCD_PEER_PORT"; else echo $((ETCD_PORT + 17 + 2 * $1)); fi; }
etcd_pidfile() { if [[ $1 -eq 1 ]]; then echo "$LAB_RUN/etcd.pid"; else echo "$LAB_RUN/etcd-m$1.pid"; fi; }
etcd_name() { if [[ $1 -eq 1 ]]; then echo cdlab; else echo "cdlab-m$1"; fi; }
etcd_endpoints() {
    local i urls=""
    for i in $(seq 1 "$(etcd_members)"); do urls+="http://127.0.0.1:$(etcd_client_port "$i"),"; done
    echo "${urls%,}"
}

# Starts member I of the plain etcd (the cluster's shape is in $LAB_RUN/etcd-members); `existing`
# when it rejoins a running cluster after `etcd-member kill`.
start_etcd_member() {
    local i=$1 state=${2:-new} cluster="" j
    for j in $(seq 1 "$(etcd_members)"); do
        cluster+="$(etcd_name "$j")=http://127.0.0.1:$(etcd_peer_port "$j"),"
    done
    mkdir -p "$LAB_DATA/etcd-m$i"
    setsid etcd --name "$(etcd_name "$i")" --data-dir "$LAB_DATA/etcd-m$i" \
        --listen-client-urls "http://127.0.0.1:$(etcd_client_port "$i")" \
        --advertise-client-urls "http://127.0.0.1:$(etcd_client_port "$i")" \
        --listen-peer-urls "http://127.0.0.1:$(etcd_peer_port "$i")" \
        --initial-advertise-peer-urls "http://127.0.0.1:$(etcd_peer_port "$i")" \
        --initial-cluster "${cluster%,}" --initial-cluster-state "$state" \
        --initial-cluster-token "cdlab$suffix" \
        --log-level warn >>"$LAB_RUN/etcd-m$i.log" 2>&1 &
    echo $! >"$(etcd_pidfile "$i")"
}

start_etcd() {
    local pki=$LAB_RUN/pki i
    mkdir -p "$LAB_DATA/etcd-auth"
    for i in $(seq 1 "$(etcd_members)"); do start_etcd_member "$i"; done
    # The second etcd speaks TLS (lab CA) and has authentication enabled.
    setsid etcd --name cdlab-auth --data-dir "$LAB_DATA/etcd-auth" \
        --listen-client-urls "https://127.0.0.1:$ETCD_AUTH_PORT" \
        --advertise-client-urls "https://127.0.0.1:$ETCD_AUTH_PORT" \
        --listen-peer-urls "http://127.0.0.1:$ETCD_AUTH_PEER_PORT" \
        --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_AUTH_PEER_PORT" \
        --initial-cluster "cdlab-auth=http://127.0.0.1:$ETCD_AUTH_PEER_PORT" \
        --cert-file "$pki/server-cert.pem" --key-file "$pki/server-key.pem" \
        --trusted-ca-file "$pki/ca.pem" \
        --log-level warn >"$LAB_RUN/etcd-auth.log" 2>&1 &
    echo $! >"$LAB_RUN/etcd-auth.pid"
    wait_for "etcd" 100 etcdctl --endpoints "$(etcd_endpoints)" endpoint health
    local tls=(--endpoints "https://127.0.0.1:$ETCD_AUTH_PORT" --cacert "$pki/ca.pem"
               --cert "$pki/cert.pem" --key "$pki/key.pem")
    wait_for "etcd (auth)" 100 etcdctl "${tls[@]}" endpoint health
    local password
    password=$(openssl rand -hex 12)
    echo "$password" >"$LAB_RUN/etcd-password"
    chmod 600 "$LAB_RUN/etcd-password"
    etcdctl "${tls[@]}" user add "root:$password" >/dev/null
    etcdctl "${tls[@]}" user grant-role root root >/dev/null
    etcdctl "${tls[@]}" auth enable >/dev/null
}

# Builds clusterdeck/lab:latest from local files: busybox, dropbear (ssh server) and the OpenSSH
# client (`ssh`, which reads ~/.ssh/config; dbclient stays as `dbclient`) with their shared
# libraries, and two users besides root: alice (uid 1000, /home/alice) and bob (uid 1001,
# /srv/bob: a home outside /home), whose homes are theirs (0755), for the non-root ssh tests.
# No registry is reachable, so `docker import` of a rootfs tarball.
build_image_tar() {
    local root=$LAB_RUN/image/rootfs tar=$LAB_RUN/image/rootfs.tar bin lib
    rm -rf "$root"
    mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc/dropbear,root/.ssh,tmp,var/www,var/run,home,proc,sys,dev,etc/cluster}
    chmod 1777 "$root/tmp"
    cp /bin/busybox "$root/bin/busybox"
    for applet in $("$root/bin/busybox" --list); do
        [[ $applet == busybox ]] && continue
        ln -sf /bin/busybox "$root/bin/$applet"
    done
    for bin in /usr/sbin/dropbear /usr/bin/dbclient /usr/bin/dropbearkey /usr/bin/ssh; do
        cp "$bin" "$root$bin"
        for lib in $(ldd "$bin" | grep -o '/[^ ]*' | sort -u); do
            mkdir -p "$root$(dirname "$lib")"
            cp -L "$lib" "$root$lib"
        done
    done
    printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' 'alice:x:1000:1000:Alice:/home/alice:/bin/sh' \
        'bob:x:1001:1001:Bob:/srv/bob:/bin/sh' 'nobody:x:65534:65534:nobody:/home:/bin/false' \
        >"$root/etc/passwd"
    printf 'root:x:0:\nalice:x:1000:\nbob:x:1001:\nnogroup:x:65534:\n' >"$root/etc/group"
    mkdir -p "$root/home/alice" "$root/srv/bob"
    chown 1000:1000 "$root/home/alice"
    chown 1001:1001 "$root/srv/bob"
    chmod 0755 "$root/home/alice" "$root/srv/bob"
    printf '/bin/sh\n' >"$root/etc/shells"
    printf '<html><body>clusterdeck lab</body></html>\n' >"$root/var/www/index.html"
    tar -C "$root" -cf "$tar" .
    echo "$tar"
}

# Copies a file (or symlink target) into the rootfs with every shared library ldd finds for it.
copy_with_libs() {
    local root=$1 file=$2 lib
    mkdir -p "$root$(dirname "$file")"
    cp -L "$file" "$root$file"
    for lib in $(ldd "$file" 2>/dev/null | grep -o '/[^ ]*' | sort -u); do
        [[ -e $root$lib ]] && continue
        mkdir -p "$root$(dirname "$lib")"
        cp -L "$lib" "$root$lib"
    done
}

# The lab rootfs plus Open MPI from the lab machine's openmpi-bin (Debian's 4.1): mpirun/orterun,
# orted (which mpirun starts on every host over ssh, so it sits on dropbear's default PATH), the MCA
# and PMIx plugins, help texts and /etc/openmpi, each with its library closure.
build_mpi_image_tar() {
    local root=$1 tar=$LAB_RUN/image/mpi.tar file dir
    for file in /usr/bin/orterun /usr/bin/orted; do copy_with_libs "$root" "$file"; done
    ln -sf orterun "$root/usr/bin/mpirun"
    ln -sf orterun "$root/usr/bin/mpiexec"
    for dir in /usr/lib/x86_64-linux-gnu/openmpi /usr/lib/x86_64-linux-gnu/pmix2 \
        /usr/lib/x86_64-linux-gnu/hwloc /usr/share/openmpi /usr/share/pmix /etc/openmpi; do
        [[ -d $dir ]] || continue
        mkdir -p "$root$(dirname "$dir")"
        cp -a "$dir" "$root$dir"
        while IFS= read -r file; do copy_with_libs "$root" "$file"; done \
            < <(find -L "$dir" -name '*.so*' -type f)
    done
    tar -C "$root" -cf "$tar" .
    echo "$tar"
}

# The python3* packages python3-torch needs (Depends and Pre-Depends, transitively): the
# interpreter, its standard library, and torch's Python dependencies (numpy, sympy, yaml, …).
python_closure() {
    local -A seen=()
    local -a queue=("$@")
    local pkg dep
    while [[ ${#queue[@]} -gt 0 ]]; do
        pkg=${queue[0]}
        queue=("${queue[@]:1}")
        [[ -z ${seen[$pkg]:-} ]] || continue
        seen[$pkg]=1
        # "a (>= 1), b | c, d:any" → a b d (the first of alternatives: what Debian installs)
        for dep in $(dpkg-query -W -f='${Depends}, ${Pre-Depends}\n' "$pkg" | tr ',' '\n' |
            sed 's/|.*//; s/(.*//; s/:any//; s/ //g' | grep -E '^(lib)?python3'); do
            if dpkg-query -W -f='${Status}' "$dep" 2>/dev/null | grep -q "install ok installed"; then
                queue+=("$dep")
            fi
        done
    done
    printf '%s\n' "${!seen[@]}" | sort
}

# Copies FILE into the rootfs ROOT as it is on this machine: each symbolic link on the way (as a
# link, so that a library and its soname link are one file, not two) and the file at the end, whose
# path it prints. A dangling link stays dangling (as on this machine).
copy_link_chain() {
    local root=$1 file=$2 target
    while :; do
        if [[ ! -e $root$file && ! -L $root$file ]]; then
            mkdir -p "$root$(dirname "$file")"
            cp -a "$file" "$root$file"
        fi
        [[ -L $file ]] || break
        target=$(readlink "$file")
        [[ $target == /* ]] || target=$(dirname "$file")/$target
        file=$(realpath -s "$target")
        [[ -e $file ]] || break
    done
    echo "$file"
}

# Debian's torch 1.13 on Python 3.11: torchrun fails at once ("'NoneType' object has no attribute
# 'get'") because its Std.from_str looks a value up by iterating an IntFlag, which no longer yields
# NONE (0) on 3.11. The image gets the lookup torch 2.0 uses (Std(int(v))), its module recompiled;
# the file is left alone if it is not the one this fixes.
patch_torchrun() {
    local root=$1
    /usr/bin/python3 - "$root/usr/lib/python3/dist-packages/torch/distributed/elastic/multiprocessing/api.py" <<'PY'
import py_compile, sys
path = sys.argv[1]
text = open(path).read()
broken = "            for s in Std:\n                if s == v:\n                    return s\n"
if broken in text:
    open(path, "w").write(text.replace(broken, "            return Std(v)\n"))
    py_compile.compile(path, doraise=True)
PY
}

# The lab rootfs plus Python 3 and Debian's PyTorch (python3-torch, CPU only; torchrun in
# /usr/bin): the files of every package of python_closure, their byte-compiled modules (Debian
# makes them at install time, outside the packages' lists: without them every kernel would
# compile torch at import), the shared-library closure (ldd) of every .so among them, and an
# ld.so.cache (BLAS/LAPACK live in alternatives folders no default path names). Test suites
# (torch/bin but torch_shm_manager, which `import torch` wants; the packages' tests/ folders:
# 100 MB) and the docs are left out. Written to $2.
build_pytorch_image_tar() {
    local root=$1 tar=$2 list file lib
    list=$(mktemp)
    # shellcheck disable=SC2046 # one package name per word
    dpkg-query -L $(python_closure python3-torch) | sort -u |
        grep -v -e '/torch/bin/.' -e '/tests/' -e '^/usr/share/doc/' -e '^/usr/share/man/' >"$list"
    dpkg-query -L python3-torch | grep '/torch/bin/torch_shm_manager$' >>"$list"
    while IFS= read -r file; do
        if [[ $file == *.py ]]; then
            file=${file%/*}/__pycache__/${file##*/}
            file=${file%.py}.cpython-311.pyc
            if [[ -f $file ]]; then echo "$file"; fi
        fi
    done <"$list" >"$list.pyc"
    # --no-recursion: the listed directories without everything else under them (dist-packages).
    sed 's|^/||' "$list" "$list.pyc" | tar -C / --no-recursion -cf - -T - | tar -xpf - -C "$root"
    # torch/lib/*.so are links into libtorch1.13's files, some of which only dlopen() finds
    # (libtorch_global_deps): each gets its link chain, and every file its libraries.
    while IFS= read -r file; do
        file=$(copy_link_chain "$root" "$file")
        for lib in $(ldd "$file" 2>/dev/null | grep -o '/[^ ]*' | sort -u); do
            [[ -e $root$lib ]] && continue
            # ldd names a library by /lib/… or /usr/lib/… (one folder on a merged-/usr system, two
            # in the rootfs): always the latter, or libtorch_cpu would be in the image twice.
            lib=$(readlink -f "$(dirname "$lib")")/${lib##*/}
            [[ -e $root$lib ]] || copy_link_chain "$root" "$lib" >/dev/null
        done
    done < <(grep -E '\.so(\.[0-9]+)*$|^/usr/bin/python3\.[0-9]+$|/torch_shm_manager$' "$list")
    rm -f "$list" "$list.pyc"
    patch_torchrun "$root"
    find "$root" \( -name '*.so' -o -name '*.so.[0-9]*' \) -printf '%h\n' | sed "s|^$root||" | sort -u >"$root/etc/ld.so.conf"
    ldconfig -r "$root"
    # glibc without an nsswitch.conf asks DNS first and stops at its "no such name": the kernels'
    # names (master1, worker2) are in /etc/hosts only.
    printf 'hosts: files dns\n' >"$root/etc/nsswitch.conf"
    tar -C "$root" -cf "$tar" .
}

# The PyTorch image's tar from the cache, built when missing (from ROOTFS, the lab rootfs, when
# given; else from a new one): the key covers every installed package's version and the code that
# builds it, so an upgrade or a change here rebuilds it.
pytorch_image_tar() {
    local root=${1:-} key tar tmp start=$SECONDS
    key=$({ dpkg-query -W -f='${Package} ${Version}\n'; declare -f build_image_tar \
        build_pytorch_image_tar python_closure copy_link_chain patch_torchrun; } | sha256sum | cut -c1-16)
    tar=$IMAGE_CACHE/lab-pytorch-$key.tar
    if [[ ! -f $tar ]]; then
        log "building the $PYTORCH_IMAGE tar (once; cached in $IMAGE_CACHE)"
        if [[ -z $root ]]; then
            build_image_tar >/dev/null
            root=$LAB_RUN/image/rootfs
        fi
        mkdir -p "$IMAGE_CACHE"
        rm -rf "$root.pytorch"
        cp -a "$root" "$root.pytorch"
        tmp=$(mktemp "$IMAGE_CACHE/.lab-pytorch.XXXXXX")
        build_pytorch_image_tar "$root.pytorch" "$tmp"
        rm -rf "$root.pytorch"
        # Another lab may build the same key at once: each writes its own file, the rename is
        # atomic; older keys go.
        mv -f "$tmp" "$tar"
        find "$IMAGE_CACHE" -maxdepth 1 -name 'lab-pytorch-*.tar' ! -name "lab-pytorch-$key.tar" -delete
        log "built $tar in $((SECONDS - start))s"
    fi
    echo "$tar"
}

# Imports the PyTorch image into every host that lacks it. Not part of `up`: 700 MB into each
# host's dockerd takes ~20 s a lab, and only tst_pytorchsample uses it (it runs this first).
cmd_pytorch_image() {
    local n i tar start=$SECONDS
    local -a missing=() pids=()
    n=$(host_count)
    [[ $n -gt 0 ]] || die "the lab is not up (scripts/lab.sh up)"
    [[ -x /usr/bin/torchrun ]] || die "python3-torch is not installed: run scripts/setup.sh"
    for i in $(seq 1 "$n"); do
        hdocker "$i" image inspect "$PYTORCH_IMAGE" >/dev/null 2>&1 || missing+=("$i")
    done
    if [[ ${#missing[@]} -eq 0 ]]; then
        log "$PYTORCH_IMAGE is on every host"
        return 0
    fi
    tar=$(pytorch_image_tar)
    rm -rf "$LAB_RUN/image"
    for i in "${missing[@]}"; do
        import_image "$i" "$tar" "$PYTORCH_IMAGE" &
        pids+=($!)
    done
    for i in "${pids[@]}"; do wait "$i" || die "importing $PYTORCH_IMAGE failed"; done
    log "imported $PYTORCH_IMAGE into ${#missing[@]} host(s) in $((SECONDS - start))s"
}

import_image() {
    local i=$1 tar=$2 ref=${3:-$IMAGE}
    hdocker "$i" import \
        --change 'ENV PATH=/usr/sbin:/usr/bin:/sbin:/bin' \
        --change 'ENV LAB_GREETING=hello-from-image' \
        --change 'LABEL io.clusterdeck.service-ports="web:http:8080"' \
        --change 'LABEL org.opencontainers.image.title="ClusterDeck lab image"' \
        --change 'EXPOSE 8080' \
        --change 'WORKDIR /root' \
        --change 'CMD ["/bin/sh"]' \
        "$tar" "$ref" >/dev/null
}

start_registry() {
    local dir=$LAB_RUN/registry password
    mkdir -p "$dir" "$LAB_DATA/registry" "$CERTS_D"
    cp "$LAB_RUN/pki/ca.pem" "$CERTS_D/ca.crt"
    password=$(openssl rand -hex 12)
    echo "$password" >"$dir/password"
    chmod 600 "$dir/password"
    htpasswd -Bbn "$REGISTRY_USER" "$password" >"$dir/htpasswd" 2>/dev/null
    # Access log at info level: tests count the pulls of each host in it.
    cat >"$dir/config.yml" <<EOF
version: 0.1
log:
  level: info
  formatter: text
  accesslog:
    disabled: false
storage:
  filesystem:
    rootdirectory: $LAB_DATA/registry
  delete:
    enabled: true
http:
  addr: $REGISTRY
  tls:
    certificate: $LAB_RUN/pki/registry-cert.pem
    key: $LAB_RUN/pki/registry-key.pem
auth:
  htpasswd:
    realm: cdlab-registry
    path: $dir/htpasswd
EOF
    setsid docker-registry serve "$dir/config.yml" >"$LAB_RUN/registry.log" 2>&1 &
    echo $! >"$LAB_RUN/registry.pid"
    wait_for "registry" 100 curl -fsS --cacert "$LAB_RUN/pki/ca.pem" -u "$REGISTRY_USER:$password" \
        "https://$REGISTRY/v2/"
}

# Pushes the lab image, and a registry-only tag built on h1 and then removed from it, so that no
# host has it. Logins stay in a lab-private docker config, not in the caller's ~/.docker.
push_registry_images() {
    local tar=$1 cfg=$LAB_RUN/registry/docker-config root=$LAB_RUN/image/rootfs
    local -a dk=(env DOCKER_CONFIG="$cfg" docker -H "unix://$(host_sock 1)")
    mkdir -p "$cfg"
    "${dk[@]}" login -u "$REGISTRY_USER" --password-stdin "$REGISTRY" \
        <"$LAB_RUN/registry/password" >/dev/null 2>&1
    "${dk[@]}" tag "$IMAGE" "$REGISTRY/$IMAGE"
    "${dk[@]}" push -q "$REGISTRY/$IMAGE" >/dev/null
    "${dk[@]}" rmi "$REGISTRY/$IMAGE" >/dev/null
    # The registry-only image: the lab rootfs plus ~48 MB that does not compress, in a layer of its
    # own, so that a pull really moves bytes (the pull benchmark wants ~50 MB).
    mkdir -p "$root/opt"
    head -c $((48 * 1024 * 1024)) /dev/urandom >"$root/opt/payload.bin"
    tar -C "$root" -cf "$tar.remote" .
    import_image 1 "$tar.remote" "$REGISTRY_ONLY_IMAGE"
    "${dk[@]}" push -q "$REGISTRY_ONLY_IMAGE" >/dev/null
    "${dk[@]}" rmi "$REGISTRY_ONLY_IMAGE" >/dev/null
    rm -f "$tar.remote" "$root/opt/payload.bin"
}

make_swarm() {
    local n=$1 i token
    hdocker 1 swarm init --advertise-addr "$(host_addr 1)" --listen-addr "$(host_addr 1):2377" \
        --default-addr-pool 172.28.0.0/16 --default-addr-pool-mask-length 24 >/dev/null
    token=$(hdocker 1 swarm join-token -q worker)
    for i in $(seq 2 "$n"); do
        hdocker "$i" swarm join --token "$token" --advertise-addr "$(host_addr "$i")" \
            --listen-addr "$(host_addr "$i"):2377" "$(host_addr 1):2377" >/dev/null
    done
    # Wait until the manager sees every node ready.
    for _ in $(seq 1 100); do
        [[ $(hdocker 1 node ls --format '{{.Status}}' | grep -c Ready) -eq $n ]] && return 0
        sleep 0.2
    done
    die "swarm: not all $n nodes became ready"
}

cmd_up() {
    local n=3 i tar start=$SECONDS swarm=1 members=1
    while [[ $# -gt 0 ]]; do
        case $1 in
        --hosts) n=${2:?--hosts needs a number}; shift 2 ;;
        --hosts=*) n=${1#*=}; shift ;;
        --no-swarm) swarm=0; shift ;;
        --etcd-members) members=${2:?--etcd-members needs a number}; shift 2 ;;
        --etcd-members=*) members=${1#*=}; shift ;;
        *) die "unknown option $1" ;;
        esac
    done
    [[ $n =~ ^[1-9]$ ]] || die "--hosts must be between 1 and 9"
    [[ $members =~ ^[135]$ ]] || die "--etcd-members must be 1, 3 or 5"
    [[ $EUID -eq 0 ]] || die "the lab needs root (network namespaces, dockerd)"
    for tool in dockerd docker etcd etcdctl nsenter ip iptables openssl busybox dropbear docker-registry htpasswd curl /usr/sbin/sshd ssh-keygen; do
        command -v "$tool" >/dev/null || die "$tool is missing: run scripts/setup.sh"
    done
    if [[ -d $LAB_RUN || -d $LAB_DATA ]] || ip link show "$BRIDGE" >/dev/null 2>&1; then
        log "cleaning state left by an earlier run"
        cmd_down >/dev/null 2>&1 || true
    fi
    mkdir -p "$LAB_RUN" "$LAB_DATA"
    echo "$n" >"$LAB_RUN/hosts"
    echo "$members" >"$LAB_RUN/etcd-members"
    log "making pki, bridge and $n namespaces"
    make_pki "$n"
    make_network "$n"
    log "starting $n dockerd, etcd ($members member(s)) and etcd with TLS+auth"
    for i in $(seq 1 "$n"); do start_dockerd "$i"; done
    start_etcd
    make_ssh "$n"
    for i in $(seq 1 "$n"); do start_sshd "$i" || die "sshd of h$i did not start (see $LAB_RUN/h$i/sshd.log)"; done
    for i in $(seq 1 "$n"); do
        wait_for "dockerd h$i" 300 hdocker "$i" version
    done
    log "importing $IMAGE"
    tar=$(build_image_tar)
    local pids=()
    for i in $(seq 1 "$n"); do
        import_image "$i" "$tar" &
        pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid" || die "importing $IMAGE failed"; done
    log "starting the registry on $REGISTRY and pushing the lab images"
    start_registry
    push_registry_images "$tar"
    # Its tar only, cached (once a machine; the import is `lab.sh pytorch-image`), before the MPI
    # image adds Open MPI to the rootfs in place.
    if [[ -x /usr/bin/torchrun ]]; then
        pytorch_image_tar "$LAB_RUN/image/rootfs" >/dev/null
    fi
    if command -v orted >/dev/null; then
        log "importing $MPI_IMAGE"
        tar=$(build_mpi_image_tar "$LAB_RUN/image/rootfs")
        pids=()
        for i in $(seq 1 "$n"); do
            import_image "$i" "$tar" "$MPI_IMAGE" &
            pids+=($!)
        done
        for pid in "${pids[@]}"; do wait "$pid" || die "importing $MPI_IMAGE failed"; done
    fi
    rm -rf "$LAB_RUN/image"
    if [[ $swarm -eq 1 ]]; then
        log "joining the hosts into one swarm"
        make_swarm "$n"
    else
        log "--no-swarm: the hosts stay out of any swarm"
    fi
    log "up: $n hosts, etcd on 127.0.0.1:$ETCD_PORT and (TLS+auth) :$ETCD_AUTH_PORT, registry $REGISTRY in $((SECONDS - start))s"
}

cmd_env() {
    local n i
    n=$(host_count)
    [[ $n -gt 0 ]] || die "the lab is not up (scripts/lab.sh up)"
    local hosts=""
    for i in $(seq 1 "$n"); do hosts+="h$i "; done
    echo "export CLUSTERDECK_LAB_ID='$LAB_ID'"
    echo "export CLUSTERDECK_LAB_HOSTS='${hosts% }'"
    for i in $(seq 1 "$n"); do
        echo "export CLUSTERDECK_LAB_H${i}_DOCKER='unix://$(host_sock "$i")'"
        echo "export CLUSTERDECK_LAB_H${i}_DOCKER_TLS='tcp+tls://$(host_addr "$i"):2376'"
        echo "export CLUSTERDECK_LAB_H${i}_ADDR='$(host_addr "$i")'"
        echo "export CLUSTERDECK_LAB_H${i}_DOCKER_SSH='ssh://root@$(host_addr "$i")$(host_sock "$i")'"
    done
    echo "export CLUSTERDECK_LAB_TLS_CA='$LAB_RUN/pki/ca.pem'"
    echo "export CLUSTERDECK_LAB_TLS_CERT='$LAB_RUN/pki/cert.pem'"
    echo "export CLUSTERDECK_LAB_TLS_KEY='$LAB_RUN/pki/key.pem'"
    echo "export CLUSTERDECK_LAB_TLS_WRONG_CA='$LAB_RUN/pki/wrong-ca.pem'"
    echo "export CLUSTERDECK_LAB_CERT_PATH='$LAB_RUN/pki'"
    echo "export CLUSTERDECK_LAB_SSH_CONFIG='$LAB_RUN/ssh/config'"
    echo "export CLUSTERDECK_LAB_ETCD='http://127.0.0.1:$ETCD_PORT'"
    echo "export CLUSTERDECK_LAB_ETCD_MEMBERS='$(etcd_endpoints)'"
    echo "export CLUSTERDECK_LAB_ETCD_AUTH='https://127.0.0.1:$ETCD_AUTH_PORT'"
    echo "export CLUSTERDECK_LAB_ETCD_USER='root'"
    echo "export CLUSTERDECK_LAB_ETCD_PASSWORD='$(cat "$LAB_RUN/etcd-password")'"
    echo "export CLUSTERDECK_LAB_IMAGE='$IMAGE'"
    echo "export CLUSTERDECK_LAB_MPI_IMAGE='$MPI_IMAGE'"
    echo "export CLUSTERDECK_LAB_PYTORCH_IMAGE='$PYTORCH_IMAGE'"
    echo "export CLUSTERDECK_LAB_REGISTRY='$REGISTRY'"
    echo "export CLUSTERDECK_LAB_REGISTRY_USER='$REGISTRY_USER'"
    echo "export CLUSTERDECK_LAB_REGISTRY_PASSWORD='$(cat "$LAB_RUN/registry/password")'"
    echo "export CLUSTERDECK_LAB_REGISTRY_IMAGE='$REGISTRY/$IMAGE'"
    echo "export CLUSTERDECK_LAB_REGISTRY_ONLY_IMAGE='$REGISTRY_ONLY_IMAGE'"
    echo "export CLUSTERDECK_LAB_REGISTRY_LOG='$LAB_RUN/registry.log'"
}

cmd_status() {
    local n i rc=0 state
    n=$(host_count)
    if [[ $n -eq 0 ]]; then
        echo "lab: down"
        return 1
    fi
    for i in $(seq 1 "$n"); do
        if state=$(hdocker "$i" info --format '{{.ServerVersion}} swarm={{.Swarm.LocalNodeState}} manager={{.Swarm.ControlAvailable}} containers={{.Containers}}' 2>/dev/null); then
            echo "h$i $(host_addr "$i") dockerd up: $state"
        else
            echo "h$i $(host_addr "$i") dockerd DOWN"
            rc=1
        fi
    done
    if etcdctl --endpoints "http://127.0.0.1:$ETCD_PORT" endpoint health >/dev/null 2>&1; then
        echo "etcd http://127.0.0.1:$ETCD_PORT healthy"
    else
        echo "etcd http://127.0.0.1:$ETCD_PORT DOWN"
        rc=1
    fi
    if etcdctl --endpoints "https://127.0.0.1:$ETCD_AUTH_PORT" --cacert "$LAB_RUN/pki/ca.pem" \
        --cert "$LAB_RUN/pki/cert.pem" --key "$LAB_RUN/pki/key.pem" \
        --user "root:$(cat "$LAB_RUN/etcd-password" 2>/dev/null)" endpoint health >/dev/null 2>&1; then
        echo "etcd https://127.0.0.1:$ETCD_AUTH_PORT (auth) healthy"
    else
        echo "etcd https://127.0.0.1:$ETCD_AUTH_PORT (auth) DOWN"
        rc=1
    fi
    if curl -fsS --cacert "$LAB_RUN/pki/ca.pem" \
        -u "$REGISTRY_USER:$(cat "$LAB_RUN/registry/password" 2>/dev/null)" "https://$REGISTRY/v2/" >/dev/null 2>&1; then
        echo "registry https://$REGISTRY healthy"
    else
        echo "registry https://$REGISTRY DOWN"
        rc=1
    fi
    return $rc
}

# Waits (up to 30 s) until process $1 is gone. SIGKILL takes effect only when a system call in
# progress returns: an etcd member in the middle of an fsync on a loaded disk lives on for
# seconds, holding its ports, and a member started again meanwhile fails with "bind: address
# already in use" (CI of 12-07: the chaos etcd-leader fault's restart, 0.5 s after the kill).
wait_gone() {
    local pid=$1 n
    [[ $pid =~ ^[0-9]+$ ]] || return 0
    for n in $(seq 1 300); do
        local state
        state=$(ps -o stat= -p "$pid" 2>/dev/null) || return 0
        [[ $state == Z* ]] && return 0
        sleep 0.1
    done
    log "pid $pid still runs 30 s after SIGKILL"
}

cmd_etcd_member() {
    local what=${1:-} i=${2:-} members
    members=$(etcd_members)
    case $what in
    leader)
        for i in $(seq 1 "$members"); do
            if etcdctl --endpoints "http://127.0.0.1:$(etcd_client_port "$i")" endpoint status \
                -w json 2>/dev/null | grep -Eq '"leader":([0-9]+)[,}].*"member_id":\1[,}]|"member_id":([0-9]+)[,}].*"leader":\2[,}]'; then
                echo "$i"
                return 0
            fi
        done
        die "no etcd member leads"
        ;;
    kill | start)
        [[ $i =~ ^[0-9]+$ && $i -ge 1 && $i -le $members ]] || die "member must be 1..$members"
        if [[ $what == kill ]]; then
            kill -KILL "$(cat "$(etcd_pidfile "$i")")" 2>/dev/null || true
            wait_gone "$(cat "$(etcd_pidfile "$i")")"
            log "etcd member $i killed"
        else
            wait_gone "$(cat "$(etcd_pidfile "$i")" 2>/dev/null)"
            start_etcd_member "$i" existing
            wait_for "etcd member $i" 100 etcdctl --endpoints "http://127.0.0.1:$(etcd_client_port "$i")" endpoint health
            log "etcd member $i started"
        fi
        ;;
    *) die "usage: lab.sh etcd-member kill|start|leader [I]" ;;
    esac
}

cmd_dockerd() {
    local what=${1:-} i=${2:-} n
    n=$(host_count)
    [[ $i =~ ^[0-9]+$ && $i -ge 1 && $i -le $n ]] || die "host must be 1..$n"
    case $what in
    pid) cat "$LAB_RUN/h$i/docker.pid" ;;
    stop)
        kill -CONT "$(cat "$LAB_RUN/h$i/docker.pid" 2>/dev/null)" 2>/dev/null || true
        stop_pidfile "$LAB_RUN/h$i/docker.pid"
        log "dockerd h$i stopped"
        ;;
    start)
        if hdocker "$i" version >/dev/null 2>&1; then log "dockerd h$i runs already"; return 0; fi
        rm -f "$(host_sock "$i")"
        start_dockerd "$i"
        wait_for "dockerd h$i" 300 hdocker "$i" version
        log "dockerd h$i started"
        ;;
    *) die "usage: lab.sh dockerd stop|start|pid I" ;;
    esac
}

cmd_resume() {
    local pidfile pid
    for pidfile in "$LAB_RUN"/h*/docker.pid "$LAB_RUN"/h*/sshd.pid "$LAB_RUN"/etcd*.pid; do
        [[ -f $pidfile ]] || continue
        pid=$(cat "$pidfile" 2>/dev/null) || continue
        # State T: stopped by a signal. Resumed and said, so a test's log shows it.
        if [[ $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) == T ]]; then
            kill -CONT "$pid" 2>/dev/null && log "resumed pid $pid ($pidfile), left stopped by a test"
        fi
    done
    return 0
}

case ${1:-} in
up) shift; cmd_up "$@" ;;
resume) cmd_resume ;;
pytorch-image) cmd_pytorch_image ;;
dockerd) shift; cmd_dockerd "$@" ;;
etcd-member) shift; cmd_etcd_member "$@" ;;
down) cmd_down ;;
status) cmd_status ;;
env) cmd_env ;;
*) echo "usage: $0 up [--hosts N] [--no-swarm] [--etcd-members N] | down | resume | status | env | pytorch-image | etcd-member kill|start|leader [I] | dockerd stop|start|pid I" >&2; exit 2 ;;
esac
