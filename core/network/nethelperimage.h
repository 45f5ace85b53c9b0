#pragma once

#include "common/error.h"
#include "docker/dockerhost.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <memory>

namespace ClusterDeck {

// The small image the VXLAN host step runs in: `ip` and `bridge` (iproute2) and a POSIX shell
// with their shared libraries, taken from the admin's machine (the hosts need nothing installed
// and no registry), tagged by a hash of its content and imported into a host the first time a
// host lacks that tag. The image carries no store label: its content, not a store, defines it,
// and any store on the host may use it.
class NetHelperImage
{
public:
    static constexpr const char *kRepository = "clusterdeck/nethelper";

    struct File
    {
        QString path; // inside the image, absolute: "/sbin/ip"
        QByteArray content;
        int mode = 0755;
    };
    // Where the local binaries are looked for.
    struct Sources
    {
        QStringList binaryDirs{QStringLiteral("/usr/sbin"), QStringLiteral("/sbin"),
                               QStringLiteral("/usr/bin"), QStringLiteral("/bin")};
        QString ldd = QStringLiteral("ldd");
        // Where ldd's answers are kept between runs (empty: not kept). Each binary's entry holds
        // while the binary, the dynamic loader's cache (`ldsoCache`) and every library it names
        // are unchanged: three ldd runs cost a launch tens of milliseconds.
        QString libraryCache;
        QString ldsoCache = QStringLiteral("/etc/ld.so.cache");
    };

    // The image of exactly these files (pure: the tag is a hash of their paths, modes and
    // contents, whatever their order).
    static NetHelperImage fromFiles(QList<File> files);
    // ip, bridge and dash (or busybox) of this machine with the libraries `ldd` names for them;
    // an error says what to install when one is missing.
    static Result<NetHelperImage> fromLocalFiles(const Sources &sources);
    static Result<NetHelperImage> fromLocalFiles();
    // fromLocalFiles() made once per process (a failure is not kept: install, then try again),
    // with ldd's answers kept in defaultLibraryCache().
    static Result<std::shared_ptr<const NetHelperImage>> local();
    // $XDG_CACHE_HOME/clusterdeck/nethelper-libraries.json (~/.cache when unset).
    static QString defaultLibraryCache();

    // The shared libraries in `ldd` output ("libc.so.6 => /lib/…/libc.so.6 (0x…)", "/lib64/
    // ld-linux-x86-64.so.2 (0x…)"); an error names a library ldd did not find.
    static Result<QStringList> parseLdd(const QByteArray &output, const QString &binary);

    QString tag() const { return m_tag; }
    QString reference() const; // "clusterdeck/nethelper:<tag>"
    const QList<File> &files() const { return m_files; }
    // The import: repository, tag, and the Dockerfile changes (PATH, the label, CMD).
    Docker::ImageImportSpec importSpec() const;
    // The root file system as an uncompressed tar, parent directories included.
    Result<QByteArray> tarArchive() const;

    // Imports the image into `host` unless the host has its tag already; returns reference().
    // Bounded by options.timeout for each call; errors name the host and the daemon's message.
    Result<QString> ensureOn(const Docker::DockerHost &host,
                             const Docker::CallOptions &options = {}) const;

private:
    QList<File> m_files; // sorted by path
    QString m_tag;
};

} // namespace ClusterDeck
