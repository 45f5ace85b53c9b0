// The pytorch sample (templates/pytorch-ddp.yaml) run for real on the 3-host lab (issue 26: "the
// pytorch sample over vxlan"): loaded through TemplateLoader, with only what the lab cannot give
// replaced (the image: the lab's clusterdeck/lab-pytorch, Debian's CPU-only torch, imported by
// `scripts/lab.sh pytorch-image`; resources: no GPU, small CPU and memory), launched by
// `clusterdeckctl` as 1 master + 2 workers on three hosts over the default `vxlan` network driver.
// The sample's own torchrun command runs this test's train.py (put into the sample's `pytorch-code`
// volume on every host): a DDP job over gloo. Every rank must log its RANK/WORLD_SIZE, get the
// right all_reduce sum and end its training steps with the same parameters as every other rank
// although each started from other weights; every kernel exits 0, the session ends as the sample's
// policy says (COMPLETED), and `rm` leaves no container, network or VXLAN device on any host.
// Endpoints come from `eval "$(scripts/lab.sh env)"`; without them the test FAILS, never skips.

#include "labcli.h"
#include "store/statestore.h"
#include "store/storefactory.h"
#include "template/templateloader.h"
#include "template/templatewriter.h"

#include <QDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

#include <memory>

using namespace ClusterDeck;

#ifndef CLUSTERDECKCTL
#error "CLUSTERDECKCTL must name the clusterdeckctl binary"
#endif

namespace {

// The script the sample's command runs (`torchrun … train.py` in /workspace). gloo, not NCCL: the
// lab has no GPU. Each line it prints starts with "ddp <hostname> rank=<rank>".
constexpr auto kTrainPy =
    R"(# tst_pytorchsample's training script: a real DDP job over gloo on CPUs.
# torchrun sets RANK, WORLD_SIZE and MASTER_* for this process from its own arguments.
import hashlib
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def checksum(module):
    h = hashlib.sha256()
    for p in module.parameters():
        h.update(p.detach().numpy().tobytes())
    return h.hexdigest()[:16]


dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
tag = f"ddp {os.environ['BACKEND_CLUSTER_HOST']} rank={rank}"
print(f"{tag} RANK={os.environ['RANK']} WORLD_SIZE={os.environ['WORLD_SIZE']} "
      f"NODE_RANK={os.environ['NODE_RANK']} world={world}", flush=True)
t = torch.tensor([float(rank + 1)])
dist.all_reduce(t, op=dist.ReduceOp.SUM)
print(f"{tag} all_reduce={t.item():g}", flush=True)
# Each rank starts from other weights and sees other data: only DDP (its broadcast of rank 0's
# weights, its averaging of the gradients) makes the ranks' parameters equal at the end.
torch.manual_seed(rank)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
print(f"{tag} init={checksum(model)}", flush=True)
ddp = DistributedDataParallel(model)
optimizer = torch.optim.SGD(ddp.parameters(), lr=0.05)
steps = 5
for _ in range(steps):
    x = torch.randn(32, 8)
    loss = torch.nn.functional.mse_loss(ddp(x), x.sum(dim=1, keepdim=True))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"{tag} steps={steps} loss={loss.item():.4f} params={checksum(model)}", flush=True)
dist.barrier()
dist.destroy_process_group()
)";

constexpr int kWorkers = 2;

} // namespace

class TestPytorchSample : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void ddpOverVxlan();

private:
    Proc cli(const QStringList &args, int timeoutMs = 300000) const
    {
        return storeCli(QStringLiteral(CLUSTERDECKCTL), m_storeUrl, args, timeoutMs);
    }
    QJsonObject show(const QString &id) const
    {
        return showSession(QStringLiteral(CLUSTERDECKCTL), m_storeUrl, id);
    }
    // The sample as the lab can run it, written to a file for `launch`; empty on an error.
    QString sampleForTheLab(QString *error) const;
    // Makes the sample's volume on every lab host with train.py in it.
    void fillCodeVolume();
    // hostname → the lines its kernel logged (`clusterdeckctl logs`), for checks and messages.
    QMap<QString, QStringList> kernelLogs(const QString &id) const;
    QString logsText(const QString &id) const;

    LabHosts m_lab;
    QTemporaryDir m_dir;
    QString m_image;
    QString m_storeUrl;
    QString m_storeId;
    std::unique_ptr<StateStore> m_store;
    std::unique_ptr<ControllerProcess> m_controller;
    QString m_session;
    QString m_volume; // the sample's volume, made by this test on every lab host
};

void TestPytorchSample::initTestCase()
{
    m_lab = LabHosts::fromEnvironment();
    if (m_lab.names().size() < 3)
        QFAIL(qPrintable(LabHosts::error()));
    QVERIFY(m_dir.isValid());
    m_image = qEnvironmentVariable("CLUSTERDECK_LAB_PYTORCH_IMAGE");
    QVERIFY2(!m_image.isEmpty(),
             "CLUSTERDECK_LAB_PYTORCH_IMAGE unset: eval \"$(scripts/lab.sh env)\"");
    // The image is imported on demand (700 MB into each host: `lab.sh up` leaves it out, as only
    // this test uses it); a no-op when every host has it. Its lab is the one in the environment.
    QElapsedTimer imported;
    imported.start();
    const Proc import = runProcess(
        QStringLiteral("%1/scripts/lab.sh").arg(qEnvironmentVariable("CLUSTERDECK_SOURCE_DIR")),
        {QStringLiteral("pytorch-image")}, 300000);
    QVERIFY2(import.exitCode == 0,
             qPrintable(QStringLiteral("scripts/lab.sh pytorch-image: ") +
                        QString::fromUtf8(import.out + import.err).trimmed()));
    qInfo().noquote() << QString::fromUtf8(import.err).trimmed()
                      << QStringLiteral("(%1 s)").arg(double(imported.elapsed()) / 1000.0, 0, 'f',
                                                      1);
    for (const QString &h : m_lab.names()) {
        const Proc has =
            m_lab.docker(h, {QStringLiteral("image"), QStringLiteral("inspect"),
                             QStringLiteral("-f"), QStringLiteral("{{.Id}}"), m_image});
        QVERIFY2(has.exitCode == 0,
                 qPrintable(h + QStringLiteral(": ") + QString::fromUtf8(has.err)));
    }
    // A new store: its network driver is the default, vxlan (no `network setup`).
    m_storeUrl = QStringLiteral("sqlite://") + m_dir.filePath(QStringLiteral("state.db"));
    auto store = openStore(m_storeUrl);
    QVERIFY2(store, qPrintable(store ? QString() : store.error().toString()));
    m_store = std::move(*store);
    m_storeId = m_store->storeId();
    for (const QString &h : m_lab.names()) {
        const Proc added =
            cli({QStringLiteral("host"), QStringLiteral("add"), h, QStringLiteral("--docker"),
                 m_lab.unixEndpoint(h), QStringLiteral("--address"), m_lab.address(h)});
        QVERIFY2(added.exitCode == 0, added.err.constData());
    }
    // The controller applies the sample's policies when the kernels exit.
    m_controller = std::make_unique<ControllerProcess>(QStringLiteral(CLUSTERDECKCTL));
    m_controller->start(m_storeUrl, {QStringLiteral("--resync"), QStringLiteral("1")});
    QVERIFY2(m_controller->waitFor(" leads", 20000), m_controller->err().constData());
}

void TestPytorchSample::cleanupTestCase()
{
    if (m_controller)
        m_controller->stop();
    if (!m_session.isEmpty())
        cli({QStringLiteral("rm"), m_session});
    for (const QString &h : m_lab.names()) {
        if (!m_volume.isEmpty())
            m_lab.docker(h, {QStringLiteral("volume"), QStringLiteral("rm"), m_volume});
    }
}

QString TestPytorchSample::sampleForTheLab(QString *error) const
{
    const QString path = QDir(qEnvironmentVariable("CLUSTERDECK_SOURCE_DIR"))
                             .filePath(QStringLiteral("templates/pytorch-ddp.yaml"));
    TemplateLoader loader;
    auto loaded = loader.loadClusterFile(path);
    if (!loaded) {
        *error = path + QStringLiteral(": ") + loaded.error().toString();
        return {};
    }
    ClusterTemplate sample = *loaded;
    // What the lab cannot give, and only that: the CUDA image (no registry here, no GPU) and its
    // 4 CPUs/16g/1 GPU per kernel (three kernels share the lab machine's 2 cores). torch and
    // torchrun are the lab image's; command, env, presets, volume and policies stay the sample's.
    for (RoleTemplate &role : sample.roles) {
        role.task.image = m_image;
        role.task.resources = Resources{0.5, qint64(512) * 1024 * 1024, std::nullopt};
    }
    const QString file = m_dir.filePath(QStringLiteral("pytorch-ddp-lab.yaml"));
    if (!writeTextFile(file, QString::fromUtf8(TemplateWriter::toYaml(sample)))) {
        *error = QStringLiteral("cannot write ") + file;
        return {};
    }
    return file;
}

void TestPytorchSample::fillCodeVolume()
{
    const QString script = m_dir.filePath(QStringLiteral("train.py"));
    QVERIFY(writeTextFile(script, QString::fromUtf8(kTrainPy)));
    const QString labImage =
        qEnvironmentVariable("CLUSTERDECK_LAB_IMAGE", QStringLiteral("clusterdeck/lab:latest"));
    for (const QString &h : m_lab.names()) {
        const Proc made =
            m_lab.docker(h, {QStringLiteral("volume"), QStringLiteral("create"), m_volume});
        QVERIFY2(made.exitCode == 0, made.err.constData());
        // `docker cp` into a created (never started) container writes into its volume.
        const Proc holder = m_lab.docker(h, {QStringLiteral("create"), QStringLiteral("-v"),
                                             m_volume + QStringLiteral(":/code"), labImage,
                                             QStringLiteral("true")});
        QVERIFY2(holder.exitCode == 0, holder.err.constData());
        const QString holderId = QString::fromUtf8(holder.out).trimmed();
        const Proc copied = m_lab.docker(
            h, {QStringLiteral("cp"), script, holderId + QStringLiteral(":/code/train.py")});
        m_lab.docker(h, {QStringLiteral("rm"), holderId});
        QVERIFY2(copied.exitCode == 0, copied.err.constData());
    }
}

QMap<QString, QStringList> TestPytorchSample::kernelLogs(const QString &id) const
{
    const Proc logs =
        cli({QStringLiteral("logs"), id, QStringLiteral("--tail"), QStringLiteral("all")});
    QMap<QString, QStringList> byKernel;
    for (const QString &line : QString::fromUtf8(logs.out).split(u'\n', Qt::SkipEmptyParts))
        byKernel[line.section(QStringLiteral(" | "), 0, 0).trimmed()].append(
            line.section(QStringLiteral(" | "), 1));
    return byKernel;
}

QString TestPytorchSample::logsText(const QString &id) const
{
    const Proc logs =
        cli({QStringLiteral("logs"), id, QStringLiteral("--tail"), QStringLiteral("60")});
    return QString::fromUtf8(logs.out + logs.err);
}

void TestPytorchSample::ddpOverVxlan()
{
    QElapsedTimer total;
    total.start();
    QString error;
    const QString file = sampleForTheLab(&error);
    QVERIFY2(!file.isEmpty(), qPrintable(error));
    {
        TemplateLoader loader;
        const auto sample = loader.loadClusterFile(file);
        QVERIFY2(sample, qPrintable(file));
        QVERIFY(sample->presets.contains(QStringLiteral("pytorch")));
        QCOMPARE(sample->mounts.size(), 1);
        m_volume = sample->mounts.first().source;
        QCOMPARE(sample->mounts.first().target, QStringLiteral("/workspace"));
        // A training run ends; without a success policy its end would count as a failure.
        QVERIFY2(sample->successPolicy.kind != SuccessPolicy::Kind::None,
                 "the sample has no successPolicy: a finished run would be restarted");
    }
    fillCodeVolume();
    if (QTest::currentTestFailed())
        return;

    // --settle 0: the job may end within the default settle period, which is no launch failure.
    QElapsedTimer launchTimer;
    launchTimer.start();
    const Proc launched =
        cli({QStringLiteral("launch"), file, QStringLiteral("--count"),
             QStringLiteral("worker=%1").arg(kWorkers), QStringLiteral("--settle"),
             QStringLiteral("0"), QStringLiteral("--json")});
    const QJsonObject s = QJsonDocument::fromJson(launched.out).object();
    m_session = s.value(QStringLiteral("id")).toString();
    QVERIFY2(launched.exitCode == 0 && !m_session.isEmpty(),
             QByteArray(launched.out + launched.err).constData());
    const qint64 launchMs = launchTimer.elapsed();

    // 1 master + 2 workers, one per host, multi-node on this store's VXLAN network.
    QMap<QString, int> rankOf; // hostname → its local rank (torchrun's node rank)
    QMap<QString, QString> hostOf, containerOf;
    for (const QJsonValue &v : s.value(QStringLiteral("kernels")).toArray()) {
        const QJsonObject k = v.toObject();
        const QString name = k.value(QStringLiteral("hostname")).toString();
        rankOf.insert(name, k.value(QStringLiteral("local_rank")).toInt());
        hostOf.insert(name, k.value(QStringLiteral("host")).toString());
        containerOf.insert(name, k.value(QStringLiteral("container_name")).toString());
    }
    QCOMPARE(rankOf.keys(), (QStringList{"master1", "worker1", "worker2"}));
    QCOMPARE(rankOf.value(QStringLiteral("master1")), 0);
    const QStringList hosts = hostOf.values();
    QCOMPARE(QSet<QString>(hosts.cbegin(), hosts.cend()).size(), 3);
    QCOMPARE(s.value(QStringLiteral("mode")).toString(), QStringLiteral("multi-node"));
    for (const QString &h : m_lab.names()) {
        const Proc vni = m_lab.docker(
            h, {QStringLiteral("network"), QStringLiteral("inspect"), QStringLiteral("-f"),
                QStringLiteral("{{index .Labels \"io.clusterdeck.vni\"}}"),
                QStringLiteral("cd-") + m_session.left(8)});
        QVERIFY2(vni.exitCode == 0 && !vni.out.trimmed().isEmpty(),
                 qPrintable(h + QStringLiteral(": no VXLAN session network: ") +
                            QString::fromUtf8(vni.err)));
    }
    QCOMPARE(m_lab.vxlanDevicesOf(m_storeId).size(), 3);

    // torchrun's job runs to its end; the controller applies the sample's success policy.
    QString status;
    const bool ended = waitUntil(
        [&] {
            status = show(m_session).value(QStringLiteral("status")).toString();
            return status == u"COMPLETED" || status == u"TERMINATED" || status == u"ERROR" ||
                   status == u"CANCELLED";
        },
        120000);
    const qint64 ranMs = launchTimer.elapsed() - launchMs;
    QVERIFY2(
        ended,
        qPrintable(QStringLiteral("still %1 after 120 s:\n%2").arg(status, logsText(m_session))));
    QVERIFY2(
        status == u"COMPLETED",
        qPrintable(QStringLiteral("%1 (%2):\n%3")
                       .arg(status, show(m_session).value(QStringLiteral("last_error")).toString(),
                            logsText(m_session))));
    QCOMPARE(show(m_session).value(QStringLiteral("restart_count")).toInt(), 0);

    // What every rank said.
    const QMap<QString, QStringList> logs = kernelLogs(m_session);
    QSet<QString> initial, trained;
    const int world = 1 + kWorkers;
    for (auto it = rankOf.cbegin(); it != rankOf.cend(); ++it) {
        const QString tag = QStringLiteral("ddp %1 rank=%2 ").arg(it.key()).arg(it.value());
        QStringList said;
        for (const QString &line : logs.value(it.key())) {
            if (line.startsWith(tag))
                said.append(line.mid(tag.size()));
        }
        const QString all = logs.value(it.key()).join(u'\n');
        for (const QString &line : std::as_const(said))
            qInfo().noquote() << it.key() << "|" << tag + line;
        QVERIFY2(said.size() == 4, qPrintable(it.key() + QStringLiteral(":\n") + all));
        QCOMPARE(said.at(0), QStringLiteral("RANK=%1 WORLD_SIZE=%2 NODE_RANK=%1 world=%2")
                                 .arg(it.value())
                                 .arg(world));
        // 1 + 2 + 3: every rank's contribution, summed over gloo across the three hosts.
        QCOMPARE(said.at(1), QStringLiteral("all_reduce=%1").arg(world * (world + 1) / 2));
        const QRegularExpressionMatch init =
            QRegularExpression(QStringLiteral("^init=([0-9a-f]{16})$")).match(said.at(2));
        const QRegularExpressionMatch done =
            QRegularExpression(QStringLiteral("^steps=5 loss=[0-9.]+ params=([0-9a-f]{16})$"))
                .match(said.at(3));
        QVERIFY2(init.hasMatch() && done.hasMatch(), qPrintable(all));
        initial.insert(init.captured(1));
        trained.insert(done.captured(1));
        // The kernel's own process (torchrun) ended with 0.
        const Proc exit = m_lab.docker(hostOf.value(it.key()),
                                       {QStringLiteral("inspect"), QStringLiteral("-f"),
                                        QStringLiteral("{{.State.Status}} {{.State.ExitCode}}"),
                                        containerOf.value(it.key())});
        QCOMPARE(QString::fromUtf8(exit.out).trimmed(), QStringLiteral("exited 0"));
    }
    // The ranks started apart and ended equal: DDP did it, across the three hosts.
    QCOMPARE(initial.size(), world);
    QVERIFY2(trained.size() == 1,
             qPrintable(QStringList(trained.cbegin(), trained.cend()).join(u',')));

    // rm leaves nothing: no container (network helpers included), network or VXLAN device.
    QElapsedTimer rmTimer;
    rmTimer.start();
    const Proc rm = cli({QStringLiteral("rm"), m_session});
    QVERIFY2(rm.exitCode == 0, rm.err.constData());
    const qint64 rmMs = rmTimer.elapsed();
    const auto containers =
        m_lab.containersWith(QStringLiteral("io.clusterdeck.session=") + m_session);
    QVERIFY2(containers.isEmpty(), qPrintable(containers.keys().join(u',')));
    const auto networks = m_lab.networksOf(m_session);
    QVERIFY2(networks.isEmpty(), qPrintable(networks.keys().join(u',')));
    const QStringList devices = m_lab.vxlanDevicesOf(m_storeId);
    QVERIFY2(devices.isEmpty(), qPrintable(devices.join(QStringLiteral("; "))));
    m_session.clear();
    qInfo().noquote()
        << QStringLiteral("pytorch sample 1+%1: launch %2 s, torchrun to COMPLETED %3 s, rm %4 s, "
                          "whole test function %5 s")
               .arg(kWorkers)
               .arg(double(launchMs) / 1000.0, 0, 'f', 1)
               .arg(double(ranMs) / 1000.0, 0, 'f', 1)
               .arg(double(rmMs) / 1000.0, 0, 'f', 1)
               .arg(double(total.elapsed()) / 1000.0, 0, 'f', 1);
}

QTEST_GUILESS_MAIN(TestPytorchSample)
#include "tst_pytorchsample.moc"
