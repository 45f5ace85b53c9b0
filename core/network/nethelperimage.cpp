#include "nethelperimage.h"

#include "common/labels.h"
#include "docker/tararchivebuilder.h"
#include "networklogging.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSaveFile>
#include <QSet>

#include <sys/stat.h>

#include <algorithm>
#include <mutex>
#include <optional>

namespace ClusterDeck {

namespace {

const QString kWhere = QStringLiteral("network helper image");

Result<QByteArray> readLocal(const QString &path)
{
    QFile file(path); // follows symlinks: the image holds the files themselves
    if (!file.open(QIODevice::ReadOnly))
        return fail(Error::Kind::Io, kWhere,
                    QStringLiteral("cannot read %1: %2").arg(path, file.errorString()));
    return file.readAll();
}

QString findBinary(const QStringList &names, const QStringList &dirs)
{
    for (const QString &name : names) {
        for (const QString &dir : dirs) {
            const QFileInfo info(QDir(dir).filePath(name));
            if (info.isFile() && info.isExecutable())
                return info.absoluteFilePath();
        }
    }
    return {};
}

Result<QStringList> librariesOf(const QString &binary, const QString &ldd)
{
    QProcess process;
    process.setProgram(ldd);
    process.setArguments({binary});
    process.start();
    if (!process.waitForStarted(10000))
        return fail(Error::Kind::Io, kWhere,
                    QStringLiteral("cannot run %1 to find the libraries of %2: %3 (install "
                                   "libc-bin)")
                        .arg(ldd, binary, process.errorString()));
    if (!process.waitForFinished(10000)) {
        process.kill();
        process.waitForFinished(1000);
        return fail(Error::Kind::Timeout, kWhere,
                    QStringLiteral("%1 %2 did not finish in 10 s").arg(ldd, binary));
    }
    const QByteArray out = process.readAllStandardOutput();
    // A static binary: "not a dynamic executable" (exit 1), nothing to copy.
    const QByteArray err = process.readAllStandardError();
    if (process.exitCode() != 0 &&
        (out.contains("not a dynamic executable") || err.contains("not a dynamic executable")))
        return QStringList();
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0)
        return fail(Error::Kind::Io, kWhere,
                    QStringLiteral("%1 %2 failed with exit code %3")
                        .arg(ldd, binary)
                        .arg(process.exitCode()));
    return NetHelperImage::parseLdd(out, binary);
}

// Size, modification time (ns) and inode: changes when a package upgrade replaces the file.
QString stampOf(const QString &path)
{
    struct stat st
    {
    };
    if (::stat(QFile::encodeName(path).constData(), &st) != 0)
        return {};
    return QStringLiteral("%1:%2.%3:%4")
        .arg(st.st_size)
        .arg(st.st_mtim.tv_sec)
        .arg(st.st_mtim.tv_nsec)
        .arg(st.st_ino);
}

// ldd's answers of earlier runs, per binary; an unreadable file is an empty cache.
class LibraryCache
{
public:
    LibraryCache(const QString &file, const QString &ldsoCache)
        : m_file(file)
        , m_ldso(stampOf(ldsoCache))
    {
        if (m_file.isEmpty())
            return;
        QFile in(m_file);
        if (!in.open(QIODevice::ReadOnly))
            return;
        const QJsonObject root = QJsonDocument::fromJson(in.readAll()).object();
        if (root.value(QStringLiteral("ldso_cache")).toString() == m_ldso)
            m_binaries = root.value(QStringLiteral("binaries")).toObject();
    }
    std::optional<QStringList> find(const QString &binary) const
    {
        const QJsonObject entry = m_binaries.value(binary).toObject();
        if (entry.isEmpty() || entry.value(QStringLiteral("stamp")).toString() != stampOf(binary))
            return std::nullopt;
        QStringList libraries;
        for (const QJsonValue &v : entry.value(QStringLiteral("libraries")).toArray()) {
            if (!QFileInfo::exists(v.toString()))
                return std::nullopt; // a library went away: ask ldd again
            libraries.append(v.toString());
        }
        return libraries;
    }
    void insert(const QString &binary, const QStringList &libraries)
    {
        m_binaries.insert(binary, QJsonObject{{QStringLiteral("stamp"), stampOf(binary)},
                                              {QStringLiteral("libraries"),
                                               QJsonArray::fromStringList(libraries)}});
        m_changed = true;
    }
    // Best effort: a cache that cannot be written costs the next run its ldd calls, nothing else.
    void save() const
    {
        if (m_file.isEmpty() || !m_changed)
            return;
        QDir().mkpath(QFileInfo(m_file).absolutePath());
        QSaveFile out(m_file);
        if (!out.open(QIODevice::WriteOnly) ||
            out.write(QJsonDocument(QJsonObject{{QStringLiteral("ldso_cache"), m_ldso},
                                                {QStringLiteral("binaries"), m_binaries}})
                          .toJson(QJsonDocument::Compact)) < 0 ||
            !out.commit())
            qCDebug(lcNetwork) << "cannot keep ldd's answers in" << m_file << ":"
                               << out.errorString();
    }

private:
    QString m_file;
    QString m_ldso;
    QJsonObject m_binaries;
    bool m_changed = false;
};

} // namespace

NetHelperImage NetHelperImage::fromFiles(QList<File> files)
{
    std::sort(files.begin(), files.end(),
              [](const File &a, const File &b) { return a.path < b.path; });
    QCryptographicHash hash(QCryptographicHash::Sha256);
    for (const File &f : std::as_const(files)) {
        hash.addData(f.path.toUtf8());
        hash.addData(QByteArray(1, '\0'));
        const QByteArray meta =
            QByteArray::number(f.mode, 8) + '\0' + QByteArray::number(f.content.size());
        hash.addData(meta);
        hash.addData(QByteArray(1, '\0'));
        hash.addData(f.content);
    }
    NetHelperImage image;
    image.m_files = std::move(files);
    image.m_tag = QString::fromLatin1(hash.result().toHex().left(16));
    return image;
}

Result<QStringList> NetHelperImage::parseLdd(const QByteArray &output, const QString &binary)
{
    QStringList libraries;
    for (const QByteArray &raw : output.split('\n')) {
        const QString line = QString::fromLocal8Bit(raw).trimmed();
        if (line.isEmpty() || line.contains(QLatin1String("statically linked")))
            continue;
        const qsizetype arrow = line.indexOf(QLatin1String("=>"));
        QString rest = arrow >= 0 ? line.mid(arrow + 2).trimmed() : line;
        if (rest.startsWith(QLatin1String("not found")))
            return fail(Error::Kind::NotFound, kWhere,
                        QStringLiteral("library %1 of %2 not found on this machine")
                            .arg(line.left(arrow).trimmed(), binary));
        rest = rest.section(u' ', 0, 0);
        if (rest.startsWith(u'/') && !libraries.contains(rest)) // linux-vdso has no file
            libraries.append(rest);
    }
    return libraries;
}

Result<NetHelperImage> NetHelperImage::fromLocalFiles(const Sources &sources)
{
    struct Wanted
    {
        QStringList names;
        QString target;
        QString install;
    };
    const QList<Wanted> wanted{
        {{QStringLiteral("ip")},
         QStringLiteral("/sbin/ip"),
         QStringLiteral("install iproute2 (e.g. `apt install iproute2`)")},
        {{QStringLiteral("bridge")},
         QStringLiteral("/sbin/bridge"),
         QStringLiteral("install iproute2 (e.g. `apt install iproute2`)")},
        {{QStringLiteral("dash"), QStringLiteral("busybox")},
         QStringLiteral("/bin/sh"),
         QStringLiteral("install dash or busybox (e.g. `apt install dash`)")},
    };
    QList<File> files;
    QSet<QString> libraries;
    LibraryCache cache(sources.libraryCache, sources.ldsoCache);
    for (const Wanted &w : wanted) {
        const QString binary = findBinary(w.names, sources.binaryDirs);
        if (binary.isEmpty())
            return fail(Error::Kind::NotFound, kWhere,
                        QStringLiteral("`%1` is not installed on this machine (looked in %2): "
                                       "%3. ClusterDeck copies it into the helper image that "
                                       "sets up the VXLAN devices on the hosts")
                            .arg(w.names.join(QLatin1String("` or `")),
                                 sources.binaryDirs.join(QLatin1String(", ")), w.install));
        auto content = readLocal(binary);
        if (!content)
            return fail(content.error());
        files.append(File{w.target, *content, 0755});
        Result<QStringList> libs = QStringList();
        if (auto known = cache.find(binary)) {
            libs = *known;
        } else {
            libs = librariesOf(binary, sources.ldd);
            if (!libs)
                return fail(libs.error());
            cache.insert(binary, *libs);
        }
        for (const QString &lib : std::as_const(*libs)) {
            if (libraries.contains(lib))
                continue;
            libraries.insert(lib);
            auto bytes = readLocal(lib);
            if (!bytes)
                return fail(bytes.error());
            files.append(File{lib, *bytes, 0755});
        }
    }
    cache.save();
    return fromFiles(std::move(files));
}

QString NetHelperImage::defaultLibraryCache()
{
    QString base = qEnvironmentVariable("XDG_CACHE_HOME");
    if (base.isEmpty())
        base = QDir::homePath() + QStringLiteral("/.cache");
    return base + QStringLiteral("/clusterdeck/nethelper-libraries.json");
}

Result<NetHelperImage> NetHelperImage::fromLocalFiles()
{
    return fromLocalFiles(Sources{});
}

Result<std::shared_ptr<const NetHelperImage>> NetHelperImage::local()
{
    static std::mutex mutex;
    static std::shared_ptr<const NetHelperImage> made;
    std::lock_guard lock(mutex);
    if (!made) {
        Sources sources;
        sources.libraryCache = defaultLibraryCache();
        auto image = fromLocalFiles(sources);
        if (!image)
            return fail(image.error());
        made = std::make_shared<const NetHelperImage>(std::move(*image));
        qCInfo(lcNetwork) << "network helper image" << made->reference() << "of"
                          << made->files().size() << "files";
    }
    return made;
}

QString NetHelperImage::reference() const
{
    return QStringLiteral("%1:%2").arg(QLatin1String(kRepository), m_tag);
}

Docker::ImageImportSpec NetHelperImage::importSpec() const
{
    Docker::ImageImportSpec spec;
    spec.repo = QLatin1String(kRepository);
    spec.tag = m_tag;
    spec.changes = {QStringLiteral("ENV PATH=/sbin:/bin"),
                    QStringLiteral("LABEL %1=nethelper").arg(Labels::helper()),
                    QStringLiteral("CMD [\"/bin/sh\"]")};
    return spec;
}

Result<QByteArray> NetHelperImage::tarArchive() const
{
    Docker::TarArchiveBuilder tar;
    QSet<QString> dirs;
    for (const File &f : m_files) {
        // Parents first, once each: "lib", "lib/x86_64-linux-gnu", …
        const QStringList parts = f.path.mid(1).split(u'/');
        QString dir;
        for (qsizetype i = 0; i + 1 < parts.size(); ++i) {
            dir += (dir.isEmpty() ? QString() : QStringLiteral("/")) + parts[i];
            if (!dirs.contains(dir)) {
                dirs.insert(dir);
                tar.addDirectory(dir);
            }
        }
        tar.addFile(f.path.mid(1), f.content, f.mode);
    }
    return tar.build();
}

Result<QString> NetHelperImage::ensureOn(const Docker::DockerHost &host,
                                         const Docker::CallOptions &options) const
{
    const QString ref = reference();
    auto present = host.inspectImage(ref, options);
    if (present)
        return ref;
    if (!present.error().isGone())
        return fail(present.error().withContext(
            QStringLiteral("looking for the network helper image %1").arg(ref)));
    auto tar = tarArchive();
    if (!tar)
        return fail(tar.error());
    qCInfo(lcNetwork) << "importing" << ref << "into" << host.displayName();
    auto id = host.importImage(importSpec(), *tar, options);
    if (!id)
        return fail(id.error().withContext(
            QStringLiteral("importing the network helper image %1").arg(ref)));
    return ref;
}

} // namespace ClusterDeck
