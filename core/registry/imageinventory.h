#pragma once

#include "common/error.h"
#include "docker/dockertypes.h"

#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

namespace ClusterDeck {
class HostRegistry;
}

namespace ClusterDeck::Registry {

// One image on one host.
struct HostImage
{
    QString id; // "sha256:…"
    qint64 size = 0;
    qint64 created = 0; // unix seconds
    int containers = 0; // containers (any state) made from it: 0 = unused, may be removed
    friend bool operator==(const HostImage &, const HostImage &) = default;
};

// One image reference (a row of the host × image matrix).
struct ImageRow
{
    QString reference;          // "repo:tag"; "<none>@<short id>" for an untagged image
    QString digest;             // "repo@sha256:…" when it came from a registry; else empty
    QMap<QString, HostImage> hosts; // host name → the image there
    // The image's org.opencontainers.image.* labels (see ociKeys()), by short key ("title" →
    // value); only those it has. From the first host that has any: a tag names one image.
    QMap<QString, QString> oci;
    qint64 size() const;        // the largest of the hosts' sizes (they are usually equal)
    friend bool operator==(const ImageRow &, const ImageRow &) = default;
};

// The OCI annotation keys shown with images, in display order: "title", "version", "source",
// "revision" (each the label org.opencontainers.image.<key>).
const QStringList &ociKeys();
// An image's labels among ociKeys(), by short key; only those present and not empty.
QMap<QString, QString> ociLabels(const Docker::Labels &labels);

// Which images are on which hosts.
struct ImageInventory
{
    QStringList hosts;              // asked, in order
    QMap<QString, QString> errors;  // host → why it could not be listed
    QList<ImageRow> rows;           // sorted by reference

    // Pure: rows from each host's listing and its containers.
    static ImageInventory fromListings(
        const QStringList &hosts, const QMap<QString, QList<Docker::ImageSummary>> &images,
        const QMap<QString, QList<Docker::ContainerSummary>> &containers);
    // Lists the hosts (all registered ones when `hosts` is empty), all at once.
    static Result<ImageInventory> survey(HostRegistry *registry, const QStringList &hosts = {});
};

} // namespace ClusterDeck::Registry
