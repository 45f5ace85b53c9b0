#pragma once

#include <QString>
#include <QStringView>

namespace ClusterDeck {

// A container's state as Docker reports it (inspect's State.Status, a listing's State, the
// events), plus what ClusterDeck itself concludes: Removed (the container is gone) and None (never
// seen). Parsed once where Docker's JSON is read; compared as a value everywhere else.
enum class ContainerStatus {
    None,
    Created,
    Running,
    Paused,
    Restarting,
    Removing,
    Exited,
    Dead,
    Removed,
    Unknown, // a state this release does not know
};

// Docker's spelling ("running", "exited" …; "" for None): the store, --json and messages use it.
QString containerStatusName(ContainerStatus status);
ContainerStatus parseContainerStatus(QStringView text);

} // namespace ClusterDeck
