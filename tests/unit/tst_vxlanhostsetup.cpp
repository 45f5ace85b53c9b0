// The pure parts of a VXLAN session network's host step (issue 26): the names and the bridge
// network a segment gives, the helper image's content hash and library list, the scripts built
// for a request, the parsing of what the helper reports, and the helper container's run on a
// scripted fake host (no daemon). The host step itself: tests/integration/tst_vxlanhost.cpp.

#include "common/labels.h"
#include "network/helpercontainer.h"
#include "network/nethelperimage.h"
#include "network/vxlanhostsetup.h"
#include "network/vxlansegment.h"
#include "support/fakedockerhost.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <thread>

using namespace ClusterDeck;
using namespace ClusterDeck::TestSupport;
using namespace std::chrono_literals;

namespace {

const QString kSession = QStringLiteral("3f2c8a1e-0000-4000-8000-000000000001");
const QString kStore = QStringLiteral("9b1d5c7a-0000-4000-8000-000000000002");

VxlanSegment segment(quint32 vni = 5005, const QString &subnet = QStringLiteral("10.200.5.0/24"))
{
    VxlanSegment s;
    s.sessionId = kSession;
    s.vni = vni;
    s.subnet = subnet;
    return s;
}

QByteArray testData(const QString &name)
{
    QFile file(qEnvironmentVariable("CLUSTERDECK_TEST_DATA") + QStringLiteral("/vxlan/") + name);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("missing test data %s", qPrintable(file.fileName()));
    return file.readAll();
}

// A fake daemon whose helper container "runs" its script: the logs are `out`/`err` and the
// container exits with `code` once its logs are followed.
class ScriptedHost : public FakeDockerHost
{
public:
    using FakeDockerHost::FakeDockerHost;
    QByteArray out;
    QByteArray err;
    int code = 0;
    mutable QString lastScript;

    Result<void> followLogs(const QString &id, const Docker::LogOptions &,
                            const std::function<bool(const Docker::LogFrame &)> &sink,
                            const Docker::CallOptions &) const override
    {
        if (auto c = container(id))
            lastScript = c->spec.cmd.value(0);
        sink({Docker::LogFrame::Stream::Stdout, out});
        if (!err.isEmpty())
            sink({Docker::LogFrame::Stream::Stderr, err});
        const_cast<ScriptedHost *>(this)->exitContainer(id, code);
        return {};
    }
};

} // namespace

class TestVxlanHostSetup : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void names_data();
    void names();
    void validation_data();
    void validation();
    void addresses_data();
    void addresses();
    void networkSpec();

    void helperImageTag();
    void helperImageArchive();
    void helperImageLocal();
    void helperImageMissingBinary();
    void helperImageLibraryCache();
    void parseLdd_data();
    void parseLdd();
    void helperImageImport();

    void applyScript_data();
    void applyScript();
    void requestFor_data();
    void requestFor();
    void requestValidation_data();
    void requestValidation();
    void teardownScript();
    void ownerAlias_data();
    void ownerAlias();
    void parseInspect_data();
    void parseInspect();
    void differences_data();
    void differences();
    void needsRepair();

    void helperContainerSpec();
    void helperWaitsBeforeStart_data();
    void helperWaitsBeforeStart();
    void helperRun_data();
    void helperRun();
    void helperLeftoverOfSameName();
    void helperRemovalIsBounded();
    void helperForeignNameLeftAlone();
    void applyOnScriptedHost_data();
    void applyOnScriptedHost();
};

void TestVxlanHostSetup::names_data()
{
    QTest::addColumn<quint32>("vni");
    QTest::addColumn<QString>("network");
    QTest::addColumn<QString>("bridge");
    QTest::addColumn<QString>("device");
    // The bridge is the session's whatever its VNI (renumbered after a collision), the device
    // the VNI's.
    QTest::newRow("issue's example") << 5005u << "cd-3f2c8a1e"
                                     << "cdbr3f2c8a1e"
                                     << "cdvx5005";
    QTest::newRow("smallest VNI") << 1u << "cd-3f2c8a1e"
                                  << "cdbr3f2c8a1e"
                                  << "cdvx1";
    QTest::newRow("largest VNI fits IFNAMSIZ") << 16777215u << "cd-3f2c8a1e"
                                               << "cdbr3f2c8a1e"
                                               << "cdvx16777215";
}

void TestVxlanHostSetup::names()
{
    QFETCH(quint32, vni);
    QFETCH(QString, network);
    QFETCH(QString, bridge);
    QFETCH(QString, device);
    const VxlanSegment s = segment(vni);
    QCOMPARE(s.networkName(), network);
    QCOMPARE(s.bridgeName(), bridge);
    QCOMPARE(s.deviceName(), device);
    QVERIFY(s.bridgeName().size() <= 15); // IFNAMSIZ less the NUL
    QVERIFY(s.deviceName().size() <= 15);
}

void TestVxlanHostSetup::validation_data()
{
    QTest::addColumn<quint32>("vni");
    QTest::addColumn<QString>("subnet");
    QTest::addColumn<int>("port");
    QTest::addColumn<int>("mtu");
    QTest::addColumn<QString>("error"); // empty: valid
    QTest::newRow("valid") << 5005u << "10.200.5.0/24" << 4789 << 1450 << "";
    QTest::newRow("valid /16") << 7u << "10.201.0.0/16" << 4790 << 1400 << "";
    QTest::newRow("VNI 0") << 0u << "10.200.5.0/24" << 4789 << 1450 << "VXLAN id 0";
    QTest::newRow("VNI beyond 24 bits")
        << 16777216u << "10.200.5.0/24" << 4789 << 1450 << "VXLAN id 16777216";
    QTest::newRow("an address, not a network")
        << 5u << "10.200.5.7/24" << 4789 << 1450 << "not an IPv4 network";
    QTest::newRow("no prefix") << 5u << "10.200.5.0" << 4789 << 1450 << "not an IPv4 network";
    QTest::newRow("octet too large")
        << 5u << "10.256.5.0/24" << 4789 << 1450 << "not an IPv4 network";
    QTest::newRow("shell text") << 5u << "10.0.0.0/24;reboot" << 4789 << 1450
                                << "not an IPv4 network";
    QTest::newRow("a leading zero (octal to inet_aton)")
        << 5u << "10.020.5.0/24" << 4789 << 1450 << "not an IPv4 network";
    QTest::newRow("a /31 leaves no kernel address")
        << 5u << "10.200.5.0/31" << 4789 << 1450 << "not an IPv4 network";
    QTest::newRow("port 0") << 5u << "10.200.5.0/24" << 0 << 1450 << "UDP port 0";
    QTest::newRow("MTU too small") << 5u << "10.200.5.0/24" << 4789 << 100 << "MTU 100";
}

void TestVxlanHostSetup::validation()
{
    QFETCH(quint32, vni);
    QFETCH(QString, subnet);
    QFETCH(int, port);
    QFETCH(int, mtu);
    QFETCH(QString, error);
    VxlanSegment s = segment(vni, subnet);
    s.port = port;
    s.mtu = mtu;
    const auto ok = s.validate();
    if (error.isEmpty()) {
        QVERIFY2(ok.has_value(), qPrintable(ok ? QString() : ok.error().toString()));
    } else {
        QVERIFY(!ok);
        QCOMPARE(ok.error().kind, Error::Kind::Invalid);
        QVERIFY2(ok.error().message.contains(error), qPrintable(ok.error().message));
    }
}

void TestVxlanHostSetup::addresses_data()
{
    QTest::addColumn<QString>("subnet");
    QTest::addColumn<quint32>("offset");
    QTest::addColumn<QString>("address"); // empty: none
    QTest::newRow("first host's gateway") << "10.200.5.0/24" << 1u << "10.200.5.1";
    QTest::newRow("second host's gateway") << "10.200.5.0/24" << 2u << "10.200.5.2";
    QTest::newRow("last host address") << "10.200.5.0/24" << 254u << "10.200.5.254";
    QTest::newRow("broadcast is none") << "10.200.5.0/24" << 255u << "";
    QTest::newRow("network is none") << "10.200.5.0/24" << 0u << "";
    QTest::newRow("outside") << "10.200.5.0/24" << 300u << "";
    QTest::newRow("across an octet in a /16") << "10.201.0.0/16" << 300u << "10.201.1.44";
    QTest::newRow("invalid subnet") << "nonsense" << 1u << "";
}

void TestVxlanHostSetup::addresses()
{
    QFETCH(QString, subnet);
    QFETCH(quint32, offset);
    QFETCH(QString, address);
    const VxlanSegment s = segment(5005, subnet);
    QCOMPARE(s.addressAt(offset).value_or(QString()), address);
}

void TestVxlanHostSetup::networkSpec()
{
    const VxlanSegment s = segment();
    const auto gateway = s.gatewayFor(2);
    QCOMPARE(gateway.value_or(QString()), QStringLiteral("10.200.5.2"));
    const Docker::NetworkSpec spec = s.networkSpec(kStore, *gateway);
    QCOMPARE(spec.name, QStringLiteral("cd-3f2c8a1e"));
    QCOMPARE(spec.driver, QStringLiteral("bridge"));
    QVERIFY(!spec.attachable);
    QCOMPARE(spec.labels.value(Labels::session()), kSession);
    QCOMPARE(spec.labels.value(Labels::store()), kStore);
    QCOMPARE(spec.labels.value(Labels::vni()), QStringLiteral("5005"));
    QCOMPARE(spec.options.value(QStringLiteral("com.docker.network.bridge.name")),
             QStringLiteral("cdbr3f2c8a1e"));
    QCOMPARE(spec.options.value(QStringLiteral("com.docker.network.driver.mtu")),
             QStringLiteral("1450"));
    QCOMPARE(spec.ipam.size(), 1);
    QCOMPARE(spec.ipam[0].subnet, QStringLiteral("10.200.5.0/24"));
    QCOMPARE(spec.ipam[0].gateway, QStringLiteral("10.200.5.2"));
}

void TestVxlanHostSetup::helperImageTag()
{
    const QList<NetHelperImage::File> files{{QStringLiteral("/sbin/ip"), "ip-binary", 0755},
                                            {QStringLiteral("/bin/sh"), "dash", 0755}};
    const NetHelperImage a = NetHelperImage::fromFiles(files);
    const NetHelperImage reordered = NetHelperImage::fromFiles({files[1], files[0]});
    QCOMPARE(a.tag().size(), 16);
    QCOMPARE(reordered.tag(), a.tag());
    QCOMPARE(a.reference(), QStringLiteral("clusterdeck/nethelper:") + a.tag());
    QList<NetHelperImage::File> changed = files;
    changed[0].content += 'x';
    QVERIFY(NetHelperImage::fromFiles(changed).tag() != a.tag());
    changed = files;
    changed[0].mode = 0700;
    QVERIFY(NetHelperImage::fromFiles(changed).tag() != a.tag());
    changed = files;
    changed[0].path = QStringLiteral("/sbin/ip2");
    QVERIFY(NetHelperImage::fromFiles(changed).tag() != a.tag());

    const Docker::ImageImportSpec spec = a.importSpec();
    QCOMPARE(spec.repo, QStringLiteral("clusterdeck/nethelper"));
    QCOMPARE(spec.tag, a.tag());
    QVERIFY(spec.changes.contains(QStringLiteral("LABEL io.clusterdeck.helper=nethelper")));
    QVERIFY(spec.changes.contains(QStringLiteral("CMD [\"/bin/sh\"]")));
}

void TestVxlanHostSetup::helperImageArchive()
{
    const NetHelperImage image = NetHelperImage::fromFiles(
        {{QStringLiteral("/sbin/ip"), "ip-binary", 0755},
         {QStringLiteral("/lib/x86_64-linux-gnu/libc.so.6"), "libc", 0755}});
    const auto tar = image.tarArchive();
    QVERIFY(tar);
    // Listed by tar(1), as the daemon's import reads it.
    QProcess list;
    list.start(QStringLiteral("tar"), {QStringLiteral("-tf"), QStringLiteral("-")});
    QVERIFY(list.waitForStarted());
    list.write(*tar);
    list.closeWriteChannel();
    QVERIFY(list.waitForFinished());
    QCOMPARE(list.exitCode(), 0);
    const QStringList paths =
        QString::fromUtf8(list.readAllStandardOutput()).split(u'\n', Qt::SkipEmptyParts);
    for (const QString &p : {QStringLiteral("lib"), QStringLiteral("lib/x86_64-linux-gnu"),
                             QStringLiteral("lib/x86_64-linux-gnu/libc.so.6"),
                             QStringLiteral("sbin"), QStringLiteral("sbin/ip")})
        QVERIFY2(paths.contains(p) || paths.contains(p + QLatin1Char('/')),
                 qPrintable(paths.join(u' ')));
}

void TestVxlanHostSetup::helperImageLocal()
{
    // This machine builds ClusterDeck, so it has iproute2 and a shell (the admin's machine).
    const auto image = NetHelperImage::fromLocalFiles();
    QVERIFY2(image, qPrintable(image ? QString() : image.error().toString()));
    QStringList paths;
    for (const auto &f : image->files())
        paths.append(f.path);
    QVERIFY(paths.contains(QStringLiteral("/sbin/ip")));
    QVERIFY(paths.contains(QStringLiteral("/sbin/bridge")));
    QVERIFY(paths.contains(QStringLiteral("/bin/sh")));
    QVERIFY2(std::any_of(paths.cbegin(), paths.cend(),
                         [](const QString &p) { return p.contains(QLatin1String("libc.so")); }),
             qPrintable(paths.join(u' ')));
    QCOMPARE(paths.size(), QSet<QString>(paths.cbegin(), paths.cend()).size()); // no duplicates
    // The same machine, the same image.
    QCOMPARE(NetHelperImage::fromLocalFiles()->tag(), image->tag());
}

void TestVxlanHostSetup::helperImageLibraryCache()
{
    // An ldd that counts its runs, then asks the real one.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString counter = dir.filePath(QStringLiteral("runs"));
    const QString ldd = dir.filePath(QStringLiteral("ldd"));
    {
        QFile script(ldd);
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write(
            QStringLiteral("#!/bin/sh\necho x >> '%1'\nexec ldd \"$@\"\n").arg(counter).toUtf8());
        script.close();
        QVERIFY(script.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
    }
    auto runs = [&] {
        QFile f(counter);
        return f.open(QIODevice::ReadOnly) ? int(f.readAll().count('\n')) : 0;
    };
    const QString ldsoCache = dir.filePath(QStringLiteral("ld.so.cache"));
    auto touchLdso = [&](const QByteArray &content) {
        QFile f(ldsoCache);
        return f.open(QIODevice::WriteOnly) && f.write(content) == content.size();
    };
    QVERIFY(touchLdso("one"));
    NetHelperImage::Sources sources;
    sources.ldd = ldd;
    sources.libraryCache = dir.filePath(QStringLiteral("cache/nethelper-libraries.json"));
    sources.ldsoCache = ldsoCache;

    const auto first = NetHelperImage::fromLocalFiles(sources);
    QVERIFY2(first, qPrintable(first ? QString() : first.error().toString()));
    QCOMPARE(runs(), 3); // ip, bridge, the shell
    QVERIFY(QFile::exists(sources.libraryCache));
    const auto second = NetHelperImage::fromLocalFiles(sources);
    QVERIFY(second);
    QCOMPARE(runs(), 3); // all three answered by the cache
    QCOMPARE(second->tag(), first->tag());
    QCOMPARE(second->files().size(), first->files().size());

    // The loader's cache changed (libraries installed or upgraded): ldd is asked again.
    QVERIFY(touchLdso("two, longer"));
    QVERIFY(NetHelperImage::fromLocalFiles(sources));
    QCOMPARE(runs(), 6);
    QVERIFY(NetHelperImage::fromLocalFiles(sources));
    QCOMPARE(runs(), 6);

    // An entry naming a library that is gone is asked again; the others stay.
    QFile cacheFile(sources.libraryCache);
    QVERIFY(cacheFile.open(QIODevice::ReadOnly));
    QJsonObject root = QJsonDocument::fromJson(cacheFile.readAll()).object();
    cacheFile.close();
    QJsonObject binaries = root.value(QStringLiteral("binaries")).toObject();
    QCOMPARE(binaries.size(), 3);
    const QString someBinary = binaries.keys().first();
    QJsonObject entry = binaries.value(someBinary).toObject();
    entry.insert(QStringLiteral("libraries"),
                 QJsonArray{dir.filePath(QStringLiteral("libgone.so.1"))});
    binaries.insert(someBinary, entry);
    root.insert(QStringLiteral("binaries"), binaries);
    QVERIFY(cacheFile.open(QIODevice::WriteOnly));
    cacheFile.write(QJsonDocument(root).toJson());
    cacheFile.close();
    const auto repaired = NetHelperImage::fromLocalFiles(sources);
    QVERIFY(repaired);
    QCOMPARE(runs(), 7);
    QCOMPARE(repaired->tag(), first->tag());

    // A cache that is not JSON is no cache: ldd answers, nothing fails, the file is rewritten.
    QVERIFY(cacheFile.open(QIODevice::WriteOnly));
    cacheFile.write("{not json");
    cacheFile.close();
    QVERIFY(NetHelperImage::fromLocalFiles(sources));
    QCOMPARE(runs(), 10);
    QVERIFY(NetHelperImage::fromLocalFiles(sources));
    QCOMPARE(runs(), 10);

    // A cache that cannot be written costs only the ldd runs.
    NetHelperImage::Sources unwritable = sources;
    unwritable.libraryCache = QStringLiteral("/proc/clusterdeck-no/cache.json");
    const auto anyway = NetHelperImage::fromLocalFiles(unwritable);
    QVERIFY(anyway);
    QCOMPARE(anyway->tag(), first->tag());
    QCOMPARE(runs(), 13);
}

void TestVxlanHostSetup::helperImageMissingBinary()
{
    QTemporaryDir empty;
    NetHelperImage::Sources sources;
    sources.binaryDirs = {empty.path()};
    const auto image = NetHelperImage::fromLocalFiles(sources);
    QVERIFY(!image);
    QCOMPARE(image.error().kind, Error::Kind::NotFound);
    QVERIFY2(image.error().message.contains(QLatin1String("`ip` is not installed")),
             qPrintable(image.error().message));
    QVERIFY2(image.error().message.contains(QLatin1String("install iproute2")),
             qPrintable(image.error().message));
}

void TestVxlanHostSetup::parseLdd_data()
{
    QTest::addColumn<QByteArray>("output");
    QTest::addColumn<QStringList>("libraries");
    QTest::addColumn<QString>("error");
    QTest::newRow("dash")
        << QByteArray("\tlinux-vdso.so.1 (0x00007efe42424000)\n"
                      "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007efe4220b000)\n"
                      "\t/lib64/ld-linux-x86-64.so.2 (0x00007efe42426000)\n")
        << QStringList{"/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2"} << "";
    QTest::newRow("static") << QByteArray("\tstatically linked\n") << QStringList() << "";
    QTest::newRow("missing library")
        << QByteArray("\tlibbpf.so.1 => not found\n"
                      "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007efe4220b000)\n")
        << QStringList() << "library libbpf.so.1 of /sbin/ip not found";
}

void TestVxlanHostSetup::parseLdd()
{
    QFETCH(QByteArray, output);
    QFETCH(QStringList, libraries);
    QFETCH(QString, error);
    const auto libs = NetHelperImage::parseLdd(output, QStringLiteral("/sbin/ip"));
    if (error.isEmpty()) {
        QVERIFY(libs);
        QCOMPARE(*libs, libraries);
    } else {
        QVERIFY(!libs);
        QVERIFY2(libs.error().message.contains(error), qPrintable(libs.error().message));
    }
}

void TestVxlanHostSetup::helperImageImport()
{
    const NetHelperImage image =
        NetHelperImage::fromFiles({{QStringLiteral("/bin/sh"), "dash", 0755}});
    FakeDockerHost host(QStringLiteral("h1"));
    host.setImagesPresent(false);
    QCOMPARE(image.ensureOn(host).value_or(QString()), image.reference());
    QCOMPARE(host.calls(QStringLiteral("importImage")), 1);
    // The host has the tag now: no second import.
    QCOMPARE(image.ensureOn(host).value_or(QString()), image.reference());
    QCOMPARE(host.calls(QStringLiteral("importImage")), 1);

    FakeDockerHost refusing(QStringLiteral("h2"));
    refusing.setImagesPresent(false);
    refusing.addFault({QStringLiteral("importImage"), 1,
                       Error::make(Error::Kind::Http, QStringLiteral("host h2"),
                                   QStringLiteral("no space left on device"), 500)});
    const auto failed = image.ensureOn(refusing);
    QVERIFY(!failed);
    QVERIFY2(failed.error().toString().contains(QLatin1String("host h2")),
             qPrintable(failed.error().toString()));
    QVERIFY2(failed.error().toString().contains(QLatin1String("no space left on device")),
             qPrintable(failed.error().toString()));
}

void TestVxlanHostSetup::applyScript_data()
{
    QTest::addColumn<QString>("local");
    QTest::addColumn<QStringList>("peers");
    QTest::addColumn<QStringList>("contains");
    const QStringList always{
        "dev=cdvx5005 br=cdbr3f2c8a1e vni=5005 port=4789 mtu=1450\n",
        // the session's devices of an earlier VNI go
        "*\" alias $owner\"*) ip link del dev \"$name\" ;;",
        "owner='io.clusterdeck.store=" + kStore + " io.clusterdeck.session=" + kSession + "'\n",
        // born attached: never seen unmarked and unattached by a run at the same time
        "ip link add \"$dev\" mtu \"$mtu\" master \"$br\" type vxlan id \"$vni\" dstport "
        "\"$port\" local \"$local\" dev \"$under\" nolearning",
        // unmarked on this session's bridge: a run of its own killed before the alias
        "*\" master $br \"*) ;;",
        "ip link set dev \"$dev\" alias \"$owner\"",
        "ip link set dev \"$dev\" mtu \"$mtu\" master \"$br\" up",
        "bridge fdb append \"$zero\" dev \"$dev\" dst \"$p\"",
        "bridge fdb del \"$zero\" dev \"$dev\" dst \"$d\"",
        "ip -j -d link show dev cdvx5005",
        "echo '@fdb cdvx5005'",
    };
    QTest::newRow("two peers, own address given")
        << "192.168.214.11" << QStringList{"192.168.214.12", "192.168.214.13"}
        << always + QStringList{"local=192.168.214.11\n", "peers='192.168.214.12 192.168.214.13'\n",
                                "ip -o -4 addr show to \"$local\""};
    QTest::newRow("own address from the route to the first peer")
        << "" << QStringList{"192.168.214.12"}
        << always + QStringList{"local=\n", "peers='192.168.214.12'\n",
                                "ip -o -4 route get \"${peers%% *}\""};
    QTest::newRow("no peers left: the device stays, its entries go")
        << "192.168.214.11" << QStringList() << always + QStringList{"peers=''\n"};
    QTest::newRow("a peer named twice is one entry")
        << "192.168.214.11" << QStringList{"192.168.214.12", "192.168.214.12"}
        << always + QStringList{"peers='192.168.214.12'\n"};
}

void TestVxlanHostSetup::applyScript()
{
    QFETCH(QString, local);
    QFETCH(QStringList, peers);
    QFETCH(QStringList, contains);
    const VxlanHostSetup::Request request{segment(), local, peers};
    const auto script =
        VxlanHostSetup::applyScript(request, VxlanHostSetup::ownerAlias(kStore, kSession));
    QVERIFY2(script, qPrintable(script ? QString() : script.error().toString()));
    for (const QString &part : std::as_const(contains))
        QVERIFY2(script->contains(part), qPrintable(part + QStringLiteral("\n---\n") + *script));
}

void TestVxlanHostSetup::requestFor_data()
{
    QTest::addColumn<QString>("host");
    QTest::addColumn<QString>("local");
    QTest::addColumn<QStringList>("peers");
    QTest::newRow("first host") << "h1"
                                << "10.1.0.1" << QStringList{"10.1.0.2", "10.1.0.3"};
    QTest::newRow("middle host") << "h2"
                                 << "10.1.0.2" << QStringList{"10.1.0.1", "10.1.0.3"};
    QTest::newRow("last host") << "h3"
                               << "10.1.0.3" << QStringList{"10.1.0.1", "10.1.0.2"};
}

void TestVxlanHostSetup::requestFor()
{
    // The launch (from its sites) and the controller's repair (from the host records) ask a
    // host's device for the same thing: the host's own address and every other host's.
    QFETCH(QString, host);
    QFETCH(QString, local);
    QFETCH(QStringList, peers);
    VxlanSegment segment;
    segment.sessionId = QStringLiteral("3f2c8a1e-0000-4000-8000-000000000000");
    segment.vni = 5005;
    segment.subnet = QStringLiteral("10.200.5.0/24");
    const QHash<QString, QString> addresses{
        {"h1", "10.1.0.1"}, {"h2", "10.1.0.2"}, {"h3", "10.1.0.3"}};
    const auto request = VxlanHostSetup::requestFor(
        segment, {"h1", "h2", "h3"}, host, [&](const QString &h) { return addresses.value(h); });
    QCOMPARE(request.segment, segment);
    QCOMPARE(request.localAddress, local);
    QCOMPARE(request.peers, peers);
    VxlanHostSetup::Request other = request;
    other.peers.removeLast();
    QVERIFY(other != request); // what connect() compares an early helper's request by
}

void TestVxlanHostSetup::requestValidation_data()
{
    QTest::addColumn<QString>("local");
    QTest::addColumn<QStringList>("peers");
    QTest::addColumn<QString>("error");
    QTest::newRow("peer not an address")
        << "192.168.214.11" << QStringList{"h2; rm -rf /"} << "peer address \"h2; rm -rf /\"";
    QTest::newRow("local not an address")
        << "h1" << QStringList{"192.168.214.12"} << "the host's address \"h1\"";
    QTest::newRow("itself as a peer")
        << "192.168.214.11" << QStringList{"192.168.214.11"} << "own address";
    QTest::newRow("nothing to find the underlay by") << "" << QStringList() << "underlay";
}

void TestVxlanHostSetup::requestValidation()
{
    QFETCH(QString, local);
    QFETCH(QStringList, peers);
    QFETCH(QString, error);
    const VxlanHostSetup::Request request{segment(), local, peers};
    const auto script = VxlanHostSetup::applyScript(request, QStringLiteral("x"));
    QVERIFY(!script);
    QCOMPARE(script.error().kind, Error::Kind::Invalid);
    QVERIFY2(script.error().message.contains(error), qPrintable(script.error().message));
}

void TestVxlanHostSetup::teardownScript()
{
    const QString script =
        VxlanHostSetup::teardownScript(segment(), VxlanHostSetup::ownerAlias(kStore, kSession));
    QVERIFY(script.startsWith(QStringLiteral("dev=cdvx5005\n")));
    QVERIFY(script.contains(QStringLiteral("io.clusterdeck.session=") + kSession));
    // Deleted only under this store's and session's alias (every VNI of the session's);
    // anything else is reported.
    QVERIFY(script.contains(QStringLiteral("*\" alias $owner\"*) name=${name%:}")));
    QVERIFY(script.contains(QStringLiteral("for d in $ours; do ip link del dev \"$d\"")));
    QVERIFY(script.contains(QStringLiteral("echo not-ours")));
    QVERIFY(script.contains(QStringLiteral("echo absent")));
}

void TestVxlanHostSetup::ownerAlias_data()
{
    QTest::addColumn<QString>("alias");
    QTest::addColumn<QString>("store");
    QTest::addColumn<QString>("session"); // empty: not an owner alias
    QTest::newRow("ours") << VxlanHostSetup::ownerAlias(kStore, kSession) << kStore << kSession;
    QTest::newRow("none") << ""
                          << ""
                          << "";
    QTest::newRow("someone else's text") << "uplink to rack 4"
                                         << ""
                                         << "";
    QTest::newRow("half") << "io.clusterdeck.store=" + kStore << ""
                          << "";
}

void TestVxlanHostSetup::ownerAlias()
{
    QFETCH(QString, alias);
    QFETCH(QString, store);
    QFETCH(QString, session);
    const auto owner = VxlanHostSetup::ownerOf(alias);
    if (session.isEmpty()) {
        QVERIFY(!owner);
    } else {
        QVERIFY(owner);
        QCOMPARE(owner->first, store);
        QCOMPARE(owner->second, session);
    }
}

void TestVxlanHostSetup::parseInspect_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QStringList>("names");
    QTest::addColumn<QStringList>("peersOfFirst");
    // Recorded from a lab host (iproute2 6.1): cdvx77 set up on bridge cdbr77 (renamed cdbr3f2c8a1e
    // in the files since bridges are named after the session) with two peers, cdvx78 made by
    // something else (learning, down, no alias, no entries).
    QTest::newRow("every device") << "inspect-all.out" << QStringList{"cdvx77", "cdvx78"}
                                  << QStringList{"192.168.214.12", "192.168.214.13"};
    QTest::newRow("one device") << "inspect-one.out" << QStringList{"cdvx77"}
                                << QStringList{"192.168.214.12", "192.168.214.13"};
    QTest::newRow("absent") << "inspect-absent.out" << QStringList() << QStringList();
}

void TestVxlanHostSetup::parseInspect()
{
    QFETCH(QString, file);
    QFETCH(QStringList, names);
    QFETCH(QStringList, peersOfFirst);
    const auto devices = VxlanHostSetup::parseInspect(testData(file));
    QVERIFY2(devices, qPrintable(devices ? QString() : devices.error().toString()));
    QStringList found;
    for (const auto &d : *devices)
        found.append(d.name);
    QCOMPARE(found, names);
    if (devices->isEmpty())
        return;
    const VxlanHostSetup::DeviceState &d = devices->first();
    QCOMPARE(d.vni, 77u);
    QCOMPARE(d.local, QStringLiteral("192.168.214.11"));
    QCOMPARE(d.underlay, QStringLiteral("eth0"));
    QCOMPARE(d.port, 4789);
    QCOMPARE(d.mtu, 1450);
    QVERIFY(!d.learning);
    QVERIFY(d.up);
    QCOMPARE(d.master, QStringLiteral("cdbr3f2c8a1e"));
    QCOMPARE(d.owner, VxlanHostSetup::ownerAlias(kStore, kSession));
    QCOMPARE(d.peers, peersOfFirst);
    if (devices->size() > 1) {
        const VxlanHostSetup::DeviceState &other = devices->at(1);
        QVERIFY(other.learning);
        QVERIFY(!other.up);
        QVERIFY(other.owner.isEmpty());
        QVERIFY(other.master.isEmpty());
        QVERIFY(other.peers.isEmpty());
    }
}

void TestVxlanHostSetup::differences_data()
{
    QTest::addColumn<QStringList>("peers");
    QTest::addColumn<QString>("local");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("as asked") << QStringList{"192.168.214.13", "192.168.214.12"} << "192.168.214.11"
                              << QStringList();
    QTest::newRow("a peer too many")
        << QStringList{"192.168.214.12"} << "192.168.214.11"
        << QStringList{"peers 192.168.214.12,192.168.214.13 (wanted 192.168.214.12)"};
    QTest::newRow("another local address")
        << QStringList{"192.168.214.12", "192.168.214.13"} << "192.168.214.21"
        << QStringList{"local address 192.168.214.11 (wanted 192.168.214.21)"};
}

void TestVxlanHostSetup::differences()
{
    const auto devices = VxlanHostSetup::parseInspect(testData(QStringLiteral("inspect-one.out")));
    QVERIFY(devices && devices->size() == 1);
    QFETCH(QStringList, peers);
    QFETCH(QString, local);
    QFETCH(QStringList, expected);
    VxlanHostSetup::Request request{segment(77, QStringLiteral("10.231.5.0/24")), local, peers};
    const QStringList found = VxlanHostSetup::differences(
        devices->first(), request, VxlanHostSetup::ownerAlias(kStore, kSession));
    QCOMPARE(found, expected);
}

void TestVxlanHostSetup::needsRepair()
{
    const auto devices = VxlanHostSetup::parseInspect(testData(QStringLiteral("inspect-one.out")));
    QVERIFY(devices && devices->size() == 1);
    const auto image = std::make_shared<const NetHelperImage>(
        NetHelperImage::fromFiles({{QStringLiteral("/bin/sh"), "dash", 0755}}));
    const VxlanHostSetup::Request request{
        segment(77, QStringLiteral("10.231.5.0/24")),
        QStringLiteral("192.168.214.11"),
        {QStringLiteral("192.168.214.12"), QStringLiteral("192.168.214.13")}};
    const VxlanHostSetup ours(StoreIdentity(kStore), image);
    QCOMPARE(ours.needsRepair(devices->first(), request), QStringList());
    QCOMPARE(ours.needsRepair(std::nullopt, request), QStringList{QStringLiteral("missing")});
    // Another store's view of the same device: not its own.
    const VxlanHostSetup other(StoreIdentity(QStringLiteral("another-store")), image);
    QCOMPARE(other.needsRepair(devices->first(), request).size(), 1);
    QVERIFY(
        other.needsRepair(devices->first(), request).first().startsWith(QLatin1String("owner ")));
}

void TestVxlanHostSetup::helperContainerSpec()
{
    const VxlanHostSetup setup(StoreIdentity(kStore),
                               std::make_shared<const NetHelperImage>(NetHelperImage::fromFiles(
                                   {{QStringLiteral("/bin/sh"), "dash", 0755}})));
    const HelperContainer::Run run = setup.helperRun(kSession, QStringLiteral("true"));
    const Docker::ContainerSpec spec = HelperContainer::containerSpec(run);
    QCOMPARE(spec.name, QStringLiteral("cd-3f2c8a1e-nethelper"));
    QVERIFY(spec.image.startsWith(QLatin1String("clusterdeck/nethelper:")));
    QCOMPARE(spec.networkMode, QStringLiteral("host"));
    QCOMPARE(spec.capAdd, QStringList{QStringLiteral("NET_ADMIN")});
    QCOMPARE(spec.capDrop, QStringList{QStringLiteral("ALL")});
    QVERIFY(!spec.privileged);
    QVERIFY(!spec.autoRemove); // the exit code and output are read before removal
    QCOMPARE(spec.entrypoint, (QStringList{QStringLiteral("/bin/sh"), QStringLiteral("-c")}));
    QCOMPARE(spec.cmd, QStringList{QStringLiteral("true")});
    QCOMPARE(spec.labels.value(Labels::store()), kStore);
    QCOMPARE(spec.labels.value(Labels::session()), kSession);
    QCOMPARE(spec.labels.value(Labels::helper()), QStringLiteral("vxlan"));
    // The store-wide listing has a name and labels of its own, no session.
    const Docker::ContainerSpec list =
        HelperContainer::containerSpec(setup.helperRun(QString(), QStringLiteral("true")));
    QCOMPARE(list.name, QStringLiteral("cd-nethelper-9b1d5c7a"));
    QVERIFY(!list.labels.contains(Labels::session()));
}

void TestVxlanHostSetup::helperRun_data()
{
    QTest::addColumn<int>("code");
    QTest::addColumn<QByteArray>("out");
    QTest::addColumn<QByteArray>("err");
    QTest::newRow("success") << 0 << QByteArray("done\n") << QByteArray();
    QTest::newRow("failure") << 3 << QByteArray() << QByteArray("RTNETLINK answers: denied\n");
}

void TestVxlanHostSetup::helperRun()
{
    QFETCH(int, code);
    QFETCH(QByteArray, out);
    QFETCH(QByteArray, err);
    ScriptedHost host(QStringLiteral("h1"));
    host.code = code;
    host.out = out;
    host.err = err;
    HelperContainer::Run run{QStringLiteral("img"),
                             QStringLiteral("cd-3f2c8a1e-nethelper"),
                             QStringLiteral("echo done"),
                             {{Labels::store(), kStore}, {Labels::helper(), "vxlan"}}};
    Docker::CallOptions call;
    call.timeout = 2s;
    const auto outcome = HelperContainer::run(host, run, call);
    QVERIFY2(outcome, qPrintable(outcome ? QString() : outcome.error().toString()));
    QCOMPARE(outcome->exitCode, host.code);
    QCOMPARE(outcome->out, host.out);
    QCOMPARE(outcome->err, host.err);
    QCOMPARE(host.lastScript, QStringLiteral("echo done"));
    QCOMPARE(host.containerCount(), 0); // removed after reading
}

// The host freezes once the script has ended: the removal gives up after the run's cleanup limit,
// not after all the time the run had left (a launch that had failed 6 s after a host froze
// waited 59 s for it in CI).
void TestVxlanHostSetup::helperRemovalIsBounded()
{
    class FreezesAfterTheScript : public ScriptedHost
    {
    public:
        using ScriptedHost::ScriptedHost;
        Result<void> removeContainer(const QString &, const Docker::RemoveContainerOptions &,
                                     const Docker::CallOptions &options) const override
        {
            asked = options.timeout;
            std::this_thread::sleep_for(options.timeout); // what a frozen daemon's socket does
            return fail(Error::Kind::Timeout, QStringLiteral("host h1"),
                        QStringLiteral("DELETE timed out"));
        }
        mutable std::chrono::milliseconds asked{0};
    };
    FreezesAfterTheScript host(QStringLiteral("h1"));
    HelperContainer::Run run{QStringLiteral("img"),
                             QStringLiteral("cd-3f2c8a1e-nethelper"),
                             QStringLiteral("echo done"),
                             {{Labels::store(), kStore}, {Labels::helper(), "vxlan"}}};
    QCOMPARE(run.cleanupLimit, std::chrono::milliseconds(10000)); // the product's
    run.cleanupLimit = 300ms;
    Docker::CallOptions call;
    call.timeout = 30s;
    QElapsedTimer t;
    t.start();
    const auto outcome = HelperContainer::run(host, run, call);
    QVERIFY(!outcome); // the script ran, but its container is left: said
    QCOMPARE(outcome.error().kind, Error::Kind::Timeout);
    QVERIFY2(outcome.error().toString().contains(QLatin1String("removing helper container")),
             qPrintable(outcome.error().toString()));
    QCOMPARE(host.asked, 300ms);
    QVERIFY2(t.elapsed() < 5000, qPrintable(QString::number(t.elapsed())));
}

void TestVxlanHostSetup::helperWaitsBeforeStart_data()
{
    QTest::addColumn<bool>("ready");
    QTest::newRow("what the script needs is made: started") << true;
    QTest::newRow("it failed: removed unstarted") << false;
}

void TestVxlanHostSetup::helperWaitsBeforeStart()
{
    // VxlanNetwork::prepare() creates a host's helper beside its bridge network, starts it once
    // the bridge exists, and goes on once it started: the wait comes between create and start,
    // the signal after the start.
    QFETCH(bool, ready);
    ScriptedHost host(QStringLiteral("h1"));
    HelperContainer::Run run{QStringLiteral("img"),
                             QStringLiteral("cd-3f2c8a1e-nethelper"),
                             QStringLiteral("echo done"),
                             {{Labels::store(), kStore}, {Labels::helper(), "vxlan"}}};
    QString stateWhileWaiting;
    QString stateOnceStarted;
    int started = 0;
    HelperContainer::Hooks hooks;
    hooks.beforeStart = [&]() -> Result<void> {
        const auto c = host.container(run.name);
        stateWhileWaiting = c ? c->state : QStringLiteral("none");
        if (!ready)
            return fail(Error::Kind::Cancelled, QStringLiteral("host h1"),
                        QStringLiteral("its bridge network was not made"));
        return {};
    };
    hooks.afterStart = [&] {
        ++started;
        const auto c = host.container(run.name);
        stateOnceStarted = c ? c->state : QStringLiteral("none");
    };
    const auto outcome = HelperContainer::run(host, run, {}, hooks);
    QCOMPARE(stateWhileWaiting, QStringLiteral("created"));
    QCOMPARE(host.containerCount(), 0); // removed either way
    if (ready) {
        QVERIFY2(outcome, qPrintable(outcome ? QString() : outcome.error().toString()));
        QCOMPARE(started, 1);
        QCOMPARE(stateOnceStarted, QStringLiteral("running")); // its output not read yet
        QCOMPARE(host.lastScript, QStringLiteral("echo done"));
        return;
    }
    QVERIFY(!outcome);
    QCOMPARE(started, 0);
    QCOMPARE(outcome.error().kind, Error::Kind::Cancelled);
    QVERIFY2(outcome.error().toString().contains(QLatin1String("not started")) &&
                 outcome.error().toString().contains(QLatin1String("bridge network was not made")),
             qPrintable(outcome.error().toString()));
    QCOMPARE(host.lastScript, QString()); // never ran
}

void TestVxlanHostSetup::helperLeftoverOfSameName()
{
    // A run killed before its removal left the container: the next run removes it first.
    ScriptedHost host(QStringLiteral("h1"));
    HelperContainer::Run run{QStringLiteral("img"),
                             QStringLiteral("cd-3f2c8a1e-nethelper"),
                             QStringLiteral("true"),
                             {{Labels::store(), kStore}, {Labels::helper(), "vxlan"}}};
    QVERIFY(host.createContainer(HelperContainer::containerSpec(run)));
    const auto outcome = HelperContainer::run(host, run, {});
    QVERIFY2(outcome, qPrintable(outcome ? QString() : outcome.error().toString()));
    QCOMPARE(host.containerCount(), 0);

    // The sweep: an exited helper of this store goes, a running one younger than the limit
    // stays, another store's stays.
    const auto exited = host.createContainer(HelperContainer::containerSpec(run));
    QVERIFY(exited);
    QVERIFY(host.startContainer(exited->id));
    QVERIFY(host.exitContainer(exited->id, 0));
    HelperContainer::Run running = run;
    running.name = QStringLiteral("cd-11111111-nethelper");
    const auto live = host.createContainer(HelperContainer::containerSpec(running));
    QVERIFY(live);
    QVERIFY(host.startContainer(live->id));
    HelperContainer::Run foreign = run;
    foreign.name = QStringLiteral("cd-22222222-nethelper");
    foreign.labels.insert(Labels::store(), QStringLiteral("another-store"));
    QVERIFY(host.createContainer(HelperContainer::containerSpec(foreign)));
    QVERIFY(host.exitContainer(foreign.name, 0));
    const auto removed = HelperContainer::removeLeftovers(
        host, run.labels, QDateTime::currentSecsSinceEpoch(), 300, {});
    QVERIFY2(removed, qPrintable(removed ? QString() : removed.error().toString()));
    QCOMPARE(*removed, 1);
    QVERIFY(host.container(running.name));
    QVERIFY(host.container(foreign.name));
    QVERIFY(!host.container(run.name));
}

void TestVxlanHostSetup::helperForeignNameLeftAlone()
{
    // A container of the helper's name that is not this store's helper is never removed.
    ScriptedHost host(QStringLiteral("h1"));
    HelperContainer::Run run{QStringLiteral("img"),
                             QStringLiteral("cd-3f2c8a1e-nethelper"),
                             QStringLiteral("true"),
                             {{Labels::store(), kStore}, {Labels::helper(), "vxlan"}}};
    Docker::ContainerSpec other;
    other.name = run.name;
    other.image = QStringLiteral("busybox");
    QVERIFY(host.createContainer(other));
    const auto outcome = HelperContainer::run(host, run, {});
    QVERIFY(!outcome);
    QCOMPARE(outcome.error().kind, Error::Kind::Conflict);
    QVERIFY(host.container(run.name));
}

void TestVxlanHostSetup::applyOnScriptedHost_data()
{
    QTest::addColumn<int>("code");
    QTest::addColumn<QByteArray>("out");
    QTest::addColumn<QByteArray>("err");
    QTest::addColumn<QStringList>("peers");
    QTest::addColumn<int>("errorKind"); // -1: success
    QTest::addColumn<QString>("error");
    const QByteArray recorded = testData(QStringLiteral("inspect-one.out"));
    QTest::newRow("set up as asked") << 0 << recorded << QByteArray()
                                     << QStringList{"192.168.214.12", "192.168.214.13"} << -1 << "";
    QTest::newRow("set up, but a peer's entry is missing")
        << 0 << recorded << QByteArray()
        << QStringList{"192.168.214.12", "192.168.214.13", "192.168.214.14"} << int(Error::Kind::Io)
        << "set up, but not as asked: peers";
    QTest::newRow("VNI taken: conflict")
        << 4 << QByteArray()
        << QByteArray("Error: A VXLAN device with the specified VNI already exists.\n")
        << QStringList{"192.168.214.12"} << int(Error::Kind::Conflict)
        << "A VXLAN device with the specified VNI already exists";
    QTest::newRow("bridge missing")
        << 5 << QByteArray() << QByteArray("bridge cdbr3f2c8a1e does not exist on this host\n")
        << QStringList{"192.168.214.12"} << int(Error::Kind::NotFound) << "bridge cdbr3f2c8a1e";
}

void TestVxlanHostSetup::applyOnScriptedHost()
{
    QFETCH(int, code);
    QFETCH(QByteArray, out);
    QFETCH(QByteArray, err);
    QFETCH(QStringList, peers);
    QFETCH(int, errorKind);
    QFETCH(QString, error);
    ScriptedHost host(QStringLiteral("h1"));
    host.code = code;
    host.out = out;
    host.err = err;
    const VxlanHostSetup setup(StoreIdentity(kStore),
                               std::make_shared<const NetHelperImage>(NetHelperImage::fromFiles(
                                   {{QStringLiteral("/bin/sh"), "dash", 0755}})));
    const VxlanHostSetup::Request request{segment(77, QStringLiteral("10.231.5.0/24")),
                                          QStringLiteral("192.168.214.11"), peers};
    const auto device = setup.apply(host, request);
    QCOMPARE(host.containerCount(), 0);
    if (errorKind < 0) {
        QVERIFY2(device, qPrintable(device ? QString() : device.error().toString()));
        QCOMPARE(device->name, QStringLiteral("cdvx77"));
        return;
    }
    QVERIFY(!device);
    QCOMPARE(int(device.error().kind), errorKind);
    QVERIFY2(device.error().where.contains(QLatin1String("cdvx77")),
             qPrintable(device.error().where));
    QVERIFY2(device.error().toString().contains(error), qPrintable(device.error().toString()));
}

QTEST_GUILESS_MAIN(TestVxlanHostSetup)
#include "tst_vxlanhostsetup.moc"
