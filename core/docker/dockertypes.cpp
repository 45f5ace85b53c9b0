#include "dockertypes.h"

namespace ClusterDeck::Docker {

QMap<QString, QString> ImageInfo::envMap() const
{
    QMap<QString, QString> out;
    for (const QString &item : env) {
        const qsizetype eq = item.indexOf(u'=');
        if (eq < 0)
            out.insert(item, QString());
        else
            out.insert(item.left(eq), item.mid(eq + 1));
    }
    return out;
}

int ContainerInfo::hostPortFor(int containerPort, const QString &protocol) const
{
    for (const PortMapping &p : ports) {
        if (p.containerPort == containerPort && p.protocol == protocol && p.hostPort > 0)
            return p.hostPort;
    }
    return 0;
}

} // namespace ClusterDeck::Docker
