#include "imageinventory.h"
#include "common/shortid.h"

#include "docker/dockerclient.h"
#include "host/hostregistry.h"
#include "common/concurrent.h"

#include <QHash>

#include <algorithm>
#include <mutex>

namespace ClusterDeck::Registry {

using namespace std::chrono_literals;

qint64 ImageRow::size() const
{
    qint64 s = 0;
    for (const HostImage &h : hosts)
        s = std::max(s, h.size);
    return s;
}

const QStringList &ociKeys()
{
    static const QStringList keys{QStringLiteral("title"), QStringLiteral("version"),
                                  QStringLiteral("source"), QStringLiteral("revision")};
    return keys;
}

QMap<QString, QString> ociLabels(const Docker::Labels &labels)
{
    QMap<QString, QString> out;
    for (const QString &key : ociKeys()) {
        const QString value = labels.value(QStringLiteral("org.opencontainers.image.") + key);
        if (!value.isEmpty())
            out.insert(key, value);
    }
    return out;
}

ImageInventory ImageInventory::fromListings(
    const QStringList &hosts, const QMap<QString, QList<Docker::ImageSummary>> &images,
    const QMap<QString, QList<Docker::ContainerSummary>> &containers)
{
    ImageInventory inv;
    inv.hosts = hosts;
    QMap<QString, ImageRow> rows;
    for (const QString &host : hosts) {
        QHash<QString, int> uses;
        for (const Docker::ContainerSummary &c : containers.value(host))
            ++uses[c.imageId];
        for (const Docker::ImageSummary &img : images.value(host)) {
            HostImage h{img.id, img.size, img.created, uses.value(img.id)};
            QStringList refs;
            for (const QString &t : img.repoTags) {
                if (t != QLatin1String("<none>:<none>"))
                    refs.append(t);
            }
            if (refs.isEmpty())
                refs.append(QStringLiteral("<none>@") + shortId(img.id));
            for (const QString &ref : std::as_const(refs)) {
                ImageRow &row = rows[ref];
                row.reference = ref;
                row.hosts.insert(host, h);
                if (row.oci.isEmpty())
                    row.oci = ociLabels(img.labels);
                const QString repo = ref.left(ref.lastIndexOf(QLatin1Char(':')));
                for (const QString &d : img.repoDigests) {
                    if (d.startsWith(repo + QLatin1Char('@')))
                        row.digest = d;
                }
            }
        }
    }
    inv.rows = rows.values();
    return inv;
}

Result<ImageInventory> ImageInventory::survey(HostRegistry *registry, const QStringList &wanted)
{
    QStringList hosts = wanted;
    if (hosts.isEmpty()) {
        auto all = registry->list();
        if (!all)
            return fail(all.error());
        for (const HostRecord &h : std::as_const(*all))
            hosts.append(h.name);
    }
    QList<std::shared_ptr<Docker::DockerClient>> clients;
    for (const QString &h : std::as_const(hosts)) {
        auto c = registry->client(h);
        if (!c)
            return fail(c.error());
        clients.append(*c);
    }
    std::mutex mutex;
    QMap<QString, QList<Docker::ImageSummary>> images;
    QMap<QString, QList<Docker::ContainerSummary>> containers;
    QMap<QString, QString> errors;
    Concurrent::forEach(int(hosts.size()), [&](int i) {
        Docker::CallOptions call;
        call.timeout = 15s;
        auto listed = clients.at(i)->listImages({}, call);
        auto used = listed ? clients.at(i)->listContainers({}, call)
                           : Result<QList<Docker::ContainerSummary>>();
        std::lock_guard lock(mutex);
        if (!listed || !used)
            errors.insert(hosts.at(i), (!listed ? listed.error() : used.error()).toString());
        else {
            images.insert(hosts.at(i), *listed);
            containers.insert(hosts.at(i), *used);
        }
    });
    ImageInventory inv = fromListings(hosts, images, containers);
    inv.errors = errors;
    return inv;
}

} // namespace ClusterDeck::Registry
