// The archive a kernel's files are uploaded in (Provisioner::filesArchiveFor), read back with
// libarchive: paths, modes, parent folders and the owner a numeric task user gives.

#include "docker/tararchivebuilder.h"
#include "plan/clusterplan.h"
#include "provision/provisioner.h"

#include <QTest>

#include <archive.h>
#include <archive_entry.h>

using namespace ClusterDeck;

class TestKernelFiles : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void archive_data();
    void archive();
};

namespace {

struct Entry
{
    QString path;
    int mode = 0; // permission bits
    int uid = -1;
    int gid = -1;
    bool directory = false;
    QByteArray content;
};

QList<Entry> readTar(const QByteArray &tar)
{
    QList<Entry> entries;
    archive *a = archive_read_new();
    archive_read_support_format_tar(a);
    if (archive_read_open_memory(a, tar.constData(), size_t(tar.size())) != ARCHIVE_OK) {
        archive_read_free(a);
        return entries;
    }
    archive_entry *e = nullptr;
    while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
        Entry x;
        x.path = QString::fromUtf8(archive_entry_pathname(e));
        if (x.path.endsWith(u'/')) // directories are written as "etc/cluster/"
            x.path.chop(1);
        x.mode = int(archive_entry_perm(e));
        x.uid = int(archive_entry_uid(e));
        x.gid = int(archive_entry_gid(e));
        x.directory = archive_entry_filetype(e) == AE_IFDIR;
        QByteArray data(int(archive_entry_size(e)), Qt::Uninitialized);
        if (!data.isEmpty())
            archive_read_data(a, data.data(), size_t(data.size()));
        x.content = data;
        entries.append(x);
    }
    archive_read_free(a);
    return entries;
}

} // namespace

void TestKernelFiles::archive_data()
{
    QTest::addColumn<QString>("owner");
    QTest::addColumn<int>("uid");
    QTest::addColumn<int>("gid");
    QTest::newRow("image default user") << QString() << 0 << 0;
    QTest::newRow("uid only") << QStringLiteral("1000") << 1000 << 1000;
    QTest::newRow("uid:gid") << QStringLiteral("1001:100") << 1001 << 100;
    QTest::newRow("user name stays root's") << QStringLiteral("mpiuser") << 0 << 0;
}

void TestKernelFiles::archive()
{
    QFETCH(QString, owner);
    QFETCH(int, uid);
    QFETCH(int, gid);
    KernelSpec k;
    k.files.append(
        {QStringLiteral("/etc/cluster/hostfile"), "master1\nworker1\n", 0644, QString()});
    k.files.append({QStringLiteral("/home/u/.ssh/id_ed25519"), "KEY", 0600, owner});
    k.files.append({QStringLiteral("/home/u/.ssh/config"), "Host *\n", 0644, owner});

    auto tar = Provisioner::filesArchiveFor(k).build();
    QVERIFY2(tar, qPrintable(tar ? QString() : tar.error().toString()));
    const QList<Entry> entries = readTar(*tar);
    QHash<QString, Entry> byPath;
    for (const Entry &e : entries)
        byPath.insert(e.path, e);
    QStringList paths = byPath.keys();
    paths.sort();
    QCOMPARE(paths,
             (QStringList{QStringLiteral("etc/cluster"), QStringLiteral("etc/cluster/hostfile"),
                          QStringLiteral("home/u"), QStringLiteral("home/u/.ssh"),
                          QStringLiteral("home/u/.ssh/config"),
                          QStringLiteral("home/u/.ssh/id_ed25519")}));
    // Files without an owner are root's; the ssh files and their folders are the task user's.
    QCOMPARE(byPath.value(QStringLiteral("etc/cluster/hostfile")).uid, 0);
    QCOMPARE(byPath.value(QStringLiteral("etc/cluster/hostfile")).content,
             QByteArray("master1\nworker1\n"));
    QCOMPARE(byPath.value(QStringLiteral("etc/cluster/hostfile")).mode, 0644);
    const Entry key = byPath.value(QStringLiteral("home/u/.ssh/id_ed25519"));
    QCOMPARE(key.mode, 0600);
    QCOMPARE(key.uid, uid);
    QCOMPARE(key.gid, gid);
    QCOMPARE(key.content, QByteArray("KEY"));
    const Entry sshDir = byPath.value(QStringLiteral("home/u/.ssh"));
    QVERIFY(sshDir.directory);
    QCOMPARE(sshDir.mode, 0700); // its first file is a secret
    QCOMPARE(sshDir.uid, uid);
    QCOMPARE(byPath.value(QStringLiteral("etc/cluster")).mode, 0755);
}

QTEST_APPLESS_MAIN(TestKernelFiles)
#include "tst_kernelfiles.moc"
