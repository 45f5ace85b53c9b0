#!/usr/bin/env bash
# Records what a previous release leaves behind, for tst_previousrelease (issue 24, item C):
# its store (schema and records) and the Docker objects of one running 1+4 multi-node session
# (container create requests, their uploaded files, the overlay network), on SQLite and on etcd.
#
#   git worktree add /tmp/prev 0881ac6 && cmake -S /tmp/prev -B /tmp/prev/build -G Ninja \
#       -DBUILD_TESTING=OFF && cmake --build /tmp/prev/build --target clusterdeckctl
#   scripts/lab.sh up
#   tests/data/previous-release/record.sh /tmp/prev/build/app/cli/clusterdeckctl 0881ac6
#
# Run once per release worth keeping; the JSON it writes is checked in. What differs from one lab
# or run to the next becomes a placeholder the test fills in: @STORE_URL@ (the store label that
# release wrote: the store's URL), @H1_DOCKER@.. (host endpoints), @CID:<hostname>@ (container
# ids), @NETWORK_ID@. The session id stays: the test removes what it recreates.
set -euo pipefail
OLD=${1:?usage: record.sh PATH/TO/OLD/clusterdeckctl RELEASE}
RELEASE=${2:?usage: record.sh PATH/TO/OLD/clusterdeckctl RELEASE}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
eval "$("$HERE/../../../scripts/lab.sh" env)"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
hosts=(h1 h2 h3)
endpoint() { local v="CLUSTERDECK_LAB_${1^^}_DOCKER"; echo "${!v}"; }

# placeholders FILE: the recorded text with everything run-specific replaced.
placeholders() {
    local text; text=$(cat)
    for h in "${hosts[@]}"; do text=${text//"$(endpoint "$h")"/@${h^^}_DOCKER@}; done
    text=${text//"$STORE_URL"/@STORE_URL@}
    while read -r id hostname; do text=${text//"$id"/@CID:$hostname@}; done <"$WORK/cids"
    [[ -n ${NETWORK_ID:-} ]] && text=${text//"$NETWORK_ID"/@NETWORK_ID@}
    printf '%s' "$text"
}

record() { # KIND STORE_URL
    local kind=$1
    STORE_URL=$2
    export CLUSTERDECK_STORE=$STORE_URL
    for h in "${hosts[@]}"; do "$OLD" host add "$h" --docker "$(endpoint "$h")" >/dev/null; done
    "$OLD" launch "$(dirname "$OLD")/../../../templates/lab-basic.yaml" --name legacy-$kind \
        --count worker=4 --mode multi-node >/dev/null
    local sid; sid=$("$OLD" ls --json | jq -r '.[0].id')
    : >"$WORK/cids"
    local containers='[]' networks='[]'
    for h in "${hosts[@]}"; do
        local d=(docker -H "$(endpoint "$h")")
        for id in $("${d[@]}" ps -aq --no-trunc --filter "label=io.clusterdeck.session=$sid"); do
            local info; info=$("${d[@]}" inspect "$id" | jq '.[0]')
            local hostname; hostname=$(jq -r '.Config.Labels["io.clusterdeck.hostname"]' <<<"$info")
            echo "$id $hostname" >>"$WORK/cids"
            local files=""
            if "${d[@]}" exec "$id" test -d /etc/cluster; then
                files=$("${d[@]}" cp "$id:/etc/cluster" - | base64 -w0)
            fi
            # The create request as Docker recorded it: the image's own config is not repeated.
            containers=$(jq --arg host "$h" --arg files "$files" --argjson info "$info" '. + [{
                host: $host, name: ($info.Name | ltrimstr("/")), files_under_etc: $files,
                create: ({Image: $info.Config.Image, Hostname: $info.Config.Hostname,
                          Cmd: $info.Config.Cmd, Entrypoint: $info.Config.Entrypoint,
                          Env: $info.Config.Env, Labels: $info.Config.Labels,
                          WorkingDir: $info.Config.WorkingDir, User: $info.Config.User,
                          ExposedPorts: $info.Config.ExposedPorts,
                          HostConfig: ($info.HostConfig | {NetworkMode, PortBindings, NanoCpus,
                                       Memory, Binds, Mounts, Init, RestartPolicy, CapAdd,
                                       ShmSize, Devices, ExtraHosts}),
                          NetworkingConfig: {EndpointsConfig: ($info.NetworkSettings.Networks
                              | with_entries(.value = {Aliases: ((.value.Aliases // [])
                                  - [$info.Id[0:12]])}))}})}]' <<<"$containers")
        done
        # The overlay as its creator asked for it, once (other nodes list it while they use it);
        # the VXLAN id is the manager's choice, not the request's.
        [[ -n ${NETWORK_ID:-} ]] && continue
        for id in $("${d[@]}" network ls -q --no-trunc --filter "label=io.clusterdeck.session=$sid"); do
            local n; n=$("${d[@]}" network inspect "$id" | jq '.[0] | .Options |=
                with_entries(select(.key != "com.docker.network.driver.overlay.vxlanid_list"))')
            NETWORK_ID=$(jq -r .Id <<<"$n")
            networks=$(jq --arg host "$h" --argjson n "$n" '. + [{host: $host, create: {
                Name: $n.Name, Driver: $n.Driver, Attachable: $n.Attachable, Labels: $n.Labels,
                Options: $n.Options}}]' <<<"$networks")
        done
    done
    local store
    if [[ $kind == sqlite ]]; then
        # .dump leaves out the schema version (user_version): added, as that release set it.
        local db=${STORE_URL#sqlite://}
        local sql; sql="$(sqlite3 "$db" .dump)
PRAGMA user_version=$(sqlite3 "$db" 'PRAGMA user_version');"
        store=$(jq -n --arg sql "$sql" '{sql: $sql}')
    else
        local prefix=/${STORE_URL#etcd://*/}
        # Keys under a lease (locks) end with the process that held them: not recorded.
        store=$(etcdctl --endpoints="$CLUSTERDECK_LAB_ETCD" get --prefix "$prefix/" -w json |
            jq --arg p "$prefix/" '{keys: [.kvs[]? | select((.lease // 0) == 0)
                | {key: (.key | @base64d | ltrimstr($p)), value: (.value | @base64d)}]}')
    fi
    jq -n --arg release "$RELEASE" --arg kind "$kind" --arg sid "$sid" --argjson store "$store" \
        --argjson containers "$containers" --argjson networks "$networks" \
        '{release: $release, store_kind: $kind, session_id: $sid, store: $store,
          networks: $networks, containers: $containers}' |
        placeholders >"$HERE/$RELEASE-$kind.json"
    "$OLD" rm "$sid" >/dev/null
    unset NETWORK_ID
    echo "recorded $HERE/$RELEASE-$kind.json (session $sid)"
}

record sqlite "sqlite://$WORK/state.db"
record etcd "etcd://${CLUSTERDECK_LAB_ETCD#http://}/cdrecord-$$"
