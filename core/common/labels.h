#pragma once

#include <QString>

namespace ClusterDeck::Labels {

// The labels on every container and network ClusterDeck creates (docs/contracts.md, Labels).
inline QString session()
{
    return QStringLiteral("io.clusterdeck.session");
}
inline QString kernel()
{
    return QStringLiteral("io.clusterdeck.kernel");
}
inline QString role()
{
    return QStringLiteral("io.clusterdeck.role");
}
inline QString roleIdx()
{
    return QStringLiteral("io.clusterdeck.role-idx");
}
inline QString hostname()
{
    return QStringLiteral("io.clusterdeck.hostname");
}
// Added (not in the original list): the store that owns the object, so a reconciler never removes
// what another console's store (or a test's temporary store) still knows about.
inline QString store()
{
    return QStringLiteral("io.clusterdeck.store");
}

// A VXLAN session network's VXLAN id, on its bridge network on every host (issue 26).
inline QString vni()
{
    return QStringLiteral("io.clusterdeck.vni");
}
// What a short-lived helper container does ("vxlan"), and on the helper image ("nethelper"):
// leftovers of a killed run are found by it (with the store and session labels) and removed.
inline QString helper()
{
    return QStringLiteral("io.clusterdeck.helper");
}

// Compose's labels, on kernels only, so that tools which group containers by compose project
// (Docker Desktop, Podman Desktop, Portainer, `docker compose ls`) show a session as one project
// and its roles as services. Informative only: ownership is decided by the io.clusterdeck.*
// labels above, never by these (see ComposeLabels in core/plan).
inline QString composeProject()
{
    return QStringLiteral("com.docker.compose.project");
}
inline QString composeService()
{
    return QStringLiteral("com.docker.compose.service");
}
inline QString composeContainerNumber()
{
    return QStringLiteral("com.docker.compose.container-number");
}
// `compose ls`, `ps` and `down` (v2.17 and later) only consider containers that carry a config
// hash, and `ps`/`down` only those marked as not one-off.
inline QString composeConfigHash()
{
    return QStringLiteral("com.docker.compose.config-hash");
}
inline QString composeOneoff()
{
    return QStringLiteral("com.docker.compose.oneoff");
}
// Compose 2.3 to 2.16 fail `compose ls` altogether when a project's container lacks it (later
// ones print N/A); a session has no compose file, so it is set, empty.
inline QString composeConfigFiles()
{
    return QStringLiteral("com.docker.compose.project.config_files");
}

// The name of a kernel's container: cd-<first 8 characters of the session id>-<hostname>.
inline QString containerName(const QString &sessionId, const QString &hostname)
{
    return QStringLiteral("cd-%1-%2").arg(sessionId.left(8), hostname);
}

// An image's (or a template's) service ports, "name:protocol:port,…": read from images and
// template tasks, written on kernels so that a container says which ports it serves.
inline QString servicePorts()
{
    return QStringLiteral("io.clusterdeck.service-ports");
}

// Labels alone do not make a container a kernel's: one run from an image committed from a kernel
// inherits them, under a name of its own. A kernel's container also has the name its labels
// give it (`name` as Docker lists it, with or without the leading '/').
template<typename LabelMap>
bool isKernelContainerName(QStringView name, const LabelMap &labels)
{
    if (name.startsWith(u'/'))
        name = name.mid(1);
    return name == containerName(labels.value(session()), labels.value(hostname()));
}

} // namespace ClusterDeck::Labels
