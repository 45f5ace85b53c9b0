#include "containerspecbuilder.h"

#include "common/labels.h"
#include "envstrings.h"
#include "plan/presets.h"
#include "template/templatevalues.h"

#include <QSet>
#include <QUrl>

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>

namespace ClusterDeck {

QString ContainerSpecBuilder::publicAddressOf(const HostRecord &host)
{
    if (!host.publicAddress.isEmpty())
        return host.publicAddress;
    const QUrl url(host.endpoint);
    if (!url.host().isEmpty())
        return url.host();
    return QStringLiteral("127.0.0.1");
}

Result<QString> ContainerSpecBuilder::bindableAddressOf(const HostRecord &host)
{
    const QString address = publicAddressOf(host);
    if (TemplateValues::isIpAddress(address))
        return address;
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo *found = nullptr;
    const int rc = getaddrinfo(address.toUtf8().constData(), nullptr, &hints, &found);
    if (rc != 0 || !found)
        return fail(Error::Kind::Invalid, QStringLiteral("host %1").arg(host.name),
                    QStringLiteral("cannot publish ports on the host's address '%1': %2 (register "
                                   "an IP with host add --address, or set bindAddress in the "
                                   "template)")
                        .arg(address, QString::fromLocal8Bit(gai_strerror(rc))));
    const addrinfo *pick = found; // IPv4 first: what "localhost" and most links mean
    for (const addrinfo *a = found; a; a = a->ai_next) {
        if (a->ai_family == AF_INET) {
            pick = a;
            break;
        }
    }
    char text[INET6_ADDRSTRLEN] = {};
    const void *raw = pick->ai_family == AF_INET
                          ? static_cast<const void *>(
                                &reinterpret_cast<const sockaddr_in *>(pick->ai_addr)->sin_addr)
                          : static_cast<const void *>(
                                &reinterpret_cast<const sockaddr_in6 *>(pick->ai_addr)->sin6_addr);
    inet_ntop(pick->ai_family, raw, text, sizeof text);
    freeaddrinfo(found);
    return QString::fromLatin1(text);
}

Docker::ContainerSpec ContainerSpecBuilder::specFor(const KernelSpec &k, const QString &network,
                                                    const QString &storeId,
                                                    const QString &hostAddress, EnvStrings *shared)
{
    Docker::ContainerSpec c;
    c.name = k.containerName;
    c.image = k.imageToRun();
    c.hostname = k.hostname;
    for (auto it = k.env.cbegin(); it != k.env.cend(); ++it)
        c.env.append(shared ? shared->joined(it.key(), it.value())
                            : it.key() + QLatin1Char('=') + it.value());
    c.labels = k.labels;
    if (!storeId.isEmpty())
        c.labels.insert(Labels::store(), storeId);
    c.entrypoint = k.entrypoint;
    c.cmd = k.command;
    c.workingDir = k.workingDir;
    c.user = k.user;
    if (k.resources.cpus)
        c.nanoCpus = qint64(*k.resources.cpus * 1e9);
    if (k.resources.memoryBytes)
        c.memory = *k.resources.memoryBytes;
    if (k.resources.gpus && *k.resources.gpus != 0) {
        Docker::DeviceRequest gpu;
        gpu.count = *k.resources.gpus;
        gpu.capabilities = {{QStringLiteral("gpu")}};
        c.deviceRequests.append(gpu);
    }
    for (const Mount &m : k.mounts) {
        Docker::MountSpec ms;
        ms.type = m.type == Mount::Type::Bind ? Docker::MountSpec::Type::Bind
                                              : Docker::MountSpec::Type::Volume;
        ms.source = m.source;
        ms.target = m.target;
        ms.readOnly = m.readOnly;
        c.mounts.append(ms);
    }
    for (const ServicePort &p : k.ports) {
        Docker::PortBinding b;
        b.containerPort = p.port;
        b.protocol = QStringLiteral("tcp");
        b.hostPort = 0; // Docker chooses; read back after start
        // Not every interface: image-declared ports would otherwise be open wherever the host is.
        b.hostIp = k.bindAddress.isEmpty() ? hostAddress : k.bindAddress;
        c.ports.append(b);
    }
    c.networkMode = network;
    Docker::EndpointSpec endpoint;
    endpoint.aliases = {k.hostname};
    c.endpoints.insert(network, endpoint);
    return c;
}

Docker::TarArchiveBuilder ContainerSpecBuilder::filesArchiveFor(const KernelSpec &k,
                                                                const QString &homeDir)
{
    // The home and the folders above it exist in the image (or Docker makes them, root's 0755):
    // an entry of ours would hand them to root and 0700 — the user could not log in any more.
    const QString home = (homeDir.isEmpty() ? Presets::homeOf(k.user) : homeDir).mid(1);
    auto isHomeOrAbove = [&home](const QString &dir) {
        return home == dir || home.startsWith(dir + QLatin1Char('/'));
    };
    Docker::TarArchiveBuilder tar;
    QSet<QString> dirs;
    for (const PlannedFile &f : k.files) {
        // A numeric owner ("1000" or "1000:100") goes into the archive; a user name would need the
        // image's /etc/passwd, so such files stay root's (readable unless they are secrets).
        bool uidOk = false, gidOk = false;
        const int uid = f.owner.section(QLatin1Char(':'), 0, 0).toInt(&uidOk);
        int gid = f.owner.section(QLatin1Char(':'), 1, 1).toInt(&gidOk);
        if (!gidOk)
            gid = uid;
        const int ownerUid = uidOk ? uid : 0;
        const int ownerGid = uidOk ? gid : 0;
        const QString rel = f.path.mid(1); // "/etc/cluster/x" → "etc/cluster/x"
        // Parent folders below the top level get an entry of their own (so ~/.ssh is 0700);
        // top-level ones (/etc, /root) exist in every image.
        const QStringList parts = rel.split(QLatin1Char('/'));
        for (int i = 2; i < parts.size(); ++i) {
            const QString dir = parts.mid(0, i).join(QLatin1Char('/'));
            if (!dirs.contains(dir) && !isHomeOrAbove(dir)) {
                dirs.insert(dir);
                tar.addDirectory(dir, f.isSecret() ? 0700 : 0755, ownerUid, ownerGid);
            }
        }
        tar.addFile(rel, f.content, f.mode, ownerUid, ownerGid);
    }
    return tar;
}

} // namespace ClusterDeck
