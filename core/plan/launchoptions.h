#pragma once

#include "sshkeypair.h"
#include "template/clustertemplate.h"

#include <QMap>
#include <QString>

#include <optional>

namespace ClusterDeck {

// What the admin chooses at launch time (`launch --count worker=12 --env K=V --mount ...`): the
// highest precedence level.
struct LaunchOptions
{
    QString sessionId;         // UUID; empty = the nil UUID (handy for render and tests)
    QString name;              // empty = "<template>-<short id>"
    QMap<QString, int> counts; // role -> count, checked against min/max
    QMap<QString, QString> env;
    QList<Mount> mounts;
    std::optional<ClusterMode> mode;
    // Required when the template uses the ssh or mpi preset (see SshKeyPair::generate()).
    std::optional<SshKeyPair> sshKeyPair;
};

} // namespace ClusterDeck
