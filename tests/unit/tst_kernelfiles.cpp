// The archive a kernel's files are uploaded in (ContainerSpecBuilder::filesArchiveFor), read back
// with libarchive: paths, modes, parent folders and the owner a numeric task user gives; and where
// a non-root user's files go (UserAccounts: the image's /etc/passwd decides home, uid and gid).

#include "docker/tararchivebuilder.h"
#include "plan/clusterplan.h"
#include "plan/useraccounts.h"
#include "provision/containerspecbuilder.h"

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
    void resolveUser_data();
    void resolveUser();
    void placeFiles_data();
    void placeFiles();
    void homeFolderKeepsItsOwner();
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
    k.user = QStringLiteral("u");
    k.files.append(
        {QStringLiteral("/etc/cluster/hostfile"), "master1\nworker1\n", 0644, QString()});
    k.files.append({QStringLiteral("/home/u/.ssh/id_ed25519"), "KEY", 0600, owner});
    k.files.append({QStringLiteral("/home/u/.ssh/config"), "Host *\n", 0644, owner});

    auto tar = ContainerSpecBuilder::filesArchiveFor(k).build();
    QVERIFY2(tar, qPrintable(tar ? QString() : tar.error().toString()));
    const QList<Entry> entries = readTar(*tar);
    QHash<QString, Entry> byPath;
    for (const Entry &e : entries)
        byPath.insert(e.path, e);
    QStringList paths = byPath.keys();
    paths.sort();
    QCOMPARE(paths,
             (QStringList{QStringLiteral("etc/cluster"), QStringLiteral("etc/cluster/hostfile"),
                          QStringLiteral("home/u/.ssh"), QStringLiteral("home/u/.ssh/config"),
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

namespace {

const QByteArray kPasswd = "root:x:0:0:root:/root:/bin/sh\n"
                           "# a comment\n"
                           "alice:x:1000:1000:Alice:/home/alice:/bin/sh\n"
                           "bob:x:1001:1001::/srv/bob:/bin/sh\n"
                           "broken-line\n"
                           "nobody:x:65534:65534:nobody:/nonexistent:/bin/false\n";

KernelSpec sshKernel(const QString &user)
{
    // As the ssh preset plans them: under Presets::homeOf(user), owned by the task's user.
    KernelSpec k;
    k.user = user;
    const QString ssh = (user == u"root" ? QStringLiteral("/root")
                                         : QStringLiteral("/home/") + user.section(u':', 0, 0)) +
                        QStringLiteral("/.ssh/");
    k.files.append({QStringLiteral("/etc/cluster/hostfile"), "worker1\n", 0644, QString()});
    k.files.append({ssh + QStringLiteral("id_ed25519"), "KEY", 0600, user});
    k.files.append({ssh + QStringLiteral("config"),
                    "Host master1\n    User root\nHost worker1 worker2\n    User " +
                        user.section(u':', 0, 0).toUtf8() + "\n    IdentityFile x\n",
                    0644, user});
    return k;
}

} // namespace

void TestKernelFiles::resolveUser_data()
{
    QTest::addColumn<QString>("user");
    QTest::addColumn<bool>("known");
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("uid");
    QTest::addColumn<int>("gid");
    QTest::addColumn<QString>("home");
    QTest::newRow("empty is root") << QString() << true << "root" << 0 << 0 << "/root";
    QTest::newRow("0 is root") << "0" << true << "root" << 0 << 0 << "/root";
    QTest::newRow("uid in passwd") << "1000" << true << "alice" << 1000 << 1000 << "/home/alice";
    QTest::newRow("name") << "alice" << true << "alice" << 1000 << 1000 << "/home/alice";
    QTest::newRow("home elsewhere") << "bob" << true << "bob" << 1001 << 1001 << "/srv/bob";
    QTest::newRow("name:gid") << "bob:50" << true << "bob" << 1001 << 50 << "/srv/bob";
    QTest::newRow("uid:gid") << "1000:100" << true << "alice" << 1000 << 100 << "/home/alice";
    QTest::newRow("uid not in passwd") << "2000" << true << "" << 2000 << 2000 << "/home/2000";
    QTest::newRow("unknown name") << "carol" << false << "" << 0 << 0 << "";
}

void TestKernelFiles::resolveUser()
{
    QFETCH(QString, user);
    QFETCH(bool, known);
    QFETCH(QString, name);
    QFETCH(int, uid);
    QFETCH(int, gid);
    QFETCH(QString, home);
    const auto account = UserAccounts::parse(kPasswd).resolve(user);
    QCOMPARE(account.has_value(), known);
    if (!known)
        return;
    QCOMPARE(account->name, name);
    QCOMPARE(account->uid, uid);
    QCOMPARE(account->gid, gid);
    QCOMPARE(account->home, home);
}

void TestKernelFiles::placeFiles_data()
{
    QTest::addColumn<QString>("user");
    QTest::addColumn<QByteArray>("passwd");
    QTest::addColumn<QString>("home");
    QTest::addColumn<QString>("owner");
    QTest::addColumn<QByteArray>("configUser"); // the `User` line of the workers
    QTest::newRow("uid: the image's home and name") << "1000" << kPasswd << "/home/alice"
                                                    << "1000:1000" << QByteArray("User alice");
    QTest::newRow("name") << "alice" << kPasswd << "/home/alice"
                          << "1000:1000" << QByteArray("User alice");
    QTest::newRow("name, home elsewhere") << "bob" << kPasswd << "/srv/bob"
                                          << "1001:1001" << QByteArray("User bob");
    QTest::newRow("uid:gid") << "1000:100" << kPasswd << "/home/alice"
                             << "1000:100" << QByteArray("User alice");
    QTest::newRow("no /etc/passwd: uid kept") << "1000" << QByteArray() << "/home/1000"
                                              << "1000:1000" << QByteArray("User 1000");
    QTest::newRow("unknown name: unchanged") << "carol" << kPasswd << "/home/carol"
                                             << "carol" << QByteArray("User carol");
}

void TestKernelFiles::placeFiles()
{
    QFETCH(QString, user);
    QFETCH(QByteArray, passwd);
    QFETCH(QString, home);
    QFETCH(QString, owner);
    QFETCH(QByteArray, configUser);
    const KernelSpec k = sshKernel(user);
    QVERIFY(UserAccounts::needsLookup(k));
    QString placedHome;
    const QList<PlannedFile> files = UserAccounts::parse(passwd).placeFiles(k, &placedHome);
    QCOMPARE(placedHome, home);
    QCOMPARE(files.size(), 3);
    QCOMPARE(files.at(0).path, QStringLiteral("/etc/cluster/hostfile")); // not the user's
    QCOMPARE(files.at(0).owner, QString());
    QCOMPARE(files.at(1).path, home + QStringLiteral("/.ssh/id_ed25519"));
    QCOMPARE(files.at(1).owner, owner);
    QCOMPARE(files.at(1).mode, 0600);
    QCOMPARE(files.at(2).path, home + QStringLiteral("/.ssh/config"));
    QVERIFY2(files.at(2).content.contains(QByteArray("    " + configUser + "\n")),
             files.at(2).content.constData());
    QVERIFY(files.at(2).content.contains("    User root\n")); // other roles' names stay
}

// The home exists in the image: the archive holds ~/.ssh and its files, owned by the user, and
// no entry for the home or anything above it (an entry would make it root's and 0700).
void TestKernelFiles::homeFolderKeepsItsOwner()
{
    KernelSpec k = sshKernel(QStringLiteral("1000"));
    QString home;
    k.files = UserAccounts::parse(kPasswd).placeFiles(k, &home);
    auto tar = ContainerSpecBuilder::filesArchiveFor(k, home).build();
    QVERIFY2(tar, qPrintable(tar ? QString() : tar.error().toString()));
    QHash<QString, Entry> byPath;
    for (const Entry &e : readTar(*tar))
        byPath.insert(e.path, e);
    QStringList paths = byPath.keys();
    paths.sort();
    QCOMPARE(paths, (QStringList{
                        QStringLiteral("etc/cluster"), QStringLiteral("etc/cluster/hostfile"),
                        QStringLiteral("home/alice/.ssh"), QStringLiteral("home/alice/.ssh/config"),
                        QStringLiteral("home/alice/.ssh/id_ed25519")}));
    for (const QString &p :
         {QStringLiteral("home/alice/.ssh"), QStringLiteral("home/alice/.ssh/config"),
          QStringLiteral("home/alice/.ssh/id_ed25519")}) {
        QCOMPARE(byPath.value(p).uid, 1000);
        QCOMPARE(byPath.value(p).gid, 1000);
    }
    QCOMPARE(byPath.value(QStringLiteral("home/alice/.ssh")).mode, 0700);

    // root: /root exists in every image; only /root/.ssh gets an entry.
    const KernelSpec root = sshKernel(QStringLiteral("root"));
    QVERIFY(!UserAccounts::needsLookup(root));
    auto rootTar = ContainerSpecBuilder::filesArchiveFor(root).build();
    QVERIFY(rootTar);
    QStringList rootPaths;
    for (const Entry &e : readTar(*rootTar))
        rootPaths.append(e.path);
    QVERIFY(rootPaths.contains(QStringLiteral("root/.ssh")));
    QVERIFY(!rootPaths.contains(QStringLiteral("root")));
}

QTEST_APPLESS_MAIN(TestKernelFiles)
#include "tst_kernelfiles.moc"
