// The pull progress stream of POST /images/create, decoded from streams recorded in the lab.
#include "docker/pullprogress.h"

#include <QFile>
#include <QTest>

#include <algorithm>

using namespace ClusterDeck::Docker;

namespace {

QByteArray testData(const QString &name)
{
    QFile file(qEnvironmentVariable("CLUSTERDECK_TEST_DATA") + QStringLiteral("/docker/") + name);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read test data %s", qPrintable(file.fileName()));
    return file.readAll();
}

PullProgress decodeInChunks(const QByteArray &stream, int chunk)
{
    PullProgressDecoder decoder;
    for (qsizetype i = 0; i < stream.size(); i += chunk)
        decoder.feed(stream.mid(i, chunk));
    decoder.finish();
    return decoder.progress();
}

} // namespace

class TestPullProgress : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void recorded_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("layersDone");
        QTest::addColumn<qint64>("downloaded");
        QTest::addColumn<qint64>("total");
        QTest::addColumn<QString>("digest");
        QTest::addColumn<bool>("finished");
        QTest::addColumn<bool>("upToDate");
        QTest::addColumn<QString>("error");
        const QString digest =
            QStringLiteral("sha256:1b9660e13c1069bd0866fe923d758fbe23ce95d5376be5c71ba4cc510c0e66e8");
        QTest::newRow("one 53 MB layer pulled") << "pull-remote.jsonl" << 1 << 1 << qint64(53563998)
                                                << qint64(53563998) << digest << true << false
                                                << QString();
        QTest::newRow("already up to date") << "pull-uptodate.jsonl" << 0 << 0 << qint64(0)
                                            << qint64(0) << digest << true << true << QString();
        QTest::newRow("error mid-stream, one layer existed, one retried")
            << "pull-multilayer-error.jsonl" << 3 << 1 << qint64(4000) << qint64(6000) << QString()
            << false << false
            << QStringLiteral("read tcp 192.168.219.12:40112->192.168.219.1:5000: read: "
                              "connection reset by peer");
    }
    void recorded()
    {
        QFETCH(QString, file);
        QFETCH(int, layers);
        QFETCH(int, layersDone);
        QFETCH(qint64, downloaded);
        QFETCH(qint64, total);
        QFETCH(QString, digest);
        QFETCH(bool, finished);
        QFETCH(bool, upToDate);
        QFETCH(QString, error);
        const QByteArray stream = testData(file);
        // Lines split at any byte must decode the same as whole lines.
        for (int chunk : {1, 7, 64, 100000}) {
            const PullProgress p = decodeInChunks(stream, chunk);
            QCOMPARE(int(p.layers.size()), layers);
            QCOMPARE(p.layersDone(), layersDone);
            QCOMPARE(p.downloadedBytes(), downloaded);
            QCOMPARE(p.totalBytes(), total);
            QCOMPARE(p.digest, digest);
            QCOMPARE(p.finished, finished);
            QCOMPARE(p.upToDate, upToDate);
            QCOMPARE(p.error, error);
            if (finished)
                QCOMPARE(p.fraction(), 1.0);
        }
    }

    // Per-layer phases and bytes as the stream goes, line by line.
    void phasesLineByLine()
    {
        const QList<QByteArray> lines = testData(QStringLiteral("pull-remote.jsonl")).split('\n');
        PullProgressDecoder decoder;
        QList<int> phases;
        QList<qint64> bytes;
        double lastFraction = 0;
        for (const QByteArray &line : lines) {
            decoder.feed(line + '\n');
            const PullProgress &p = decoder.progress();
            QVERIFY2(p.fraction() >= lastFraction, "progress never goes backwards");
            lastFraction = p.fraction();
            if (p.layers.isEmpty())
                continue;
            if (phases.isEmpty() || phases.last() != int(p.layers.first().phase))
                phases.append(int(p.layers.first().phase));
            bytes.append(p.layers.first().downloaded);
        }
        using Phase = LayerProgress::Phase;
        QCOMPARE(phases, (QList<int>{int(Phase::Waiting), int(Phase::Downloading),
                                     int(Phase::Downloaded), int(Phase::Extracting),
                                     int(Phase::Complete)}));
        QCOMPARE(bytes.at(1), qint64(540672));
        QVERIFY(std::is_sorted(bytes.cbegin(), bytes.cend()));
    }

    void retryResetsTheLayer()
    {
        PullProgressDecoder d;
        d.feed(R"({"status":"Downloading","progressDetail":{"current":500,"total":2000},"id":"c"})"
               "\n");
        QCOMPARE(d.progress().downloadedBytes(), qint64(500));
        d.feed(R"({"status":"Retrying in 5 seconds","progressDetail":{},"id":"c"})"
               "\n");
        QVERIFY(d.progress().layers.first().phase == LayerProgress::Phase::Waiting);
        QCOMPARE(d.progress().downloadedBytes(), qint64(0));
        QCOMPARE(d.progress().totalBytes(), qint64(2000)); // the size stays known
    }

    void garbageLinesAreIgnored()
    {
        PullProgressDecoder d;
        QVERIFY(!d.feed("not json\n\n{}\n"));
        QVERIFY(d.progress().layers.isEmpty());
        QVERIFY(d.progress().error.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestPullProgress)
#include "tst_pullprogress.moc"
