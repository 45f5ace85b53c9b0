#include "docker/dockerlogdemuxer.h"
#include "docker/tararchivebuilder.h"

#include <QFile>
#include <QTest>

using namespace ClusterDeck;
using namespace ClusterDeck::Docker;

namespace {

QByteArray frame(int stream, const QByteArray &data)
{
    QByteArray out(8, '\0');
    out[0] = char(stream);
    const quint32 size = quint32(data.size());
    out[4] = char((size >> 24) & 0xff);
    out[5] = char((size >> 16) & 0xff);
    out[6] = char((size >> 8) & 0xff);
    out[7] = char(size & 0xff);
    return out + data;
}

QByteArray testData(const QString &name)
{
    QFile file(qEnvironmentVariable("CLUSTERDECK_TEST_DATA") + QStringLiteral("/docker/") + name);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read test data %s", qPrintable(file.fileName()));
    return file.readAll();
}

// Minimal ustar reader: enough to check what the builder wrote.
QMap<QString, QByteArray> readTar(const QByteArray &tar, QMap<QString, char> *types = nullptr)
{
    QMap<QString, QByteArray> out;
    qsizetype offset = 0;
    QString longName;
    while (offset + 512 <= tar.size()) {
        const QByteArray header = tar.mid(offset, 512);
        if (header.count('\0') == 512)
            break;
        QString name = QString::fromUtf8(header.left(100).constData());
        const QString prefix = QString::fromUtf8(header.mid(345, 155).constData());
        if (!prefix.isEmpty())
            name = prefix + u'/' + name;
        const qint64 size = header.mid(124, 12).trimmed().replace('\0', "").toLongLong(nullptr, 8);
        const char type = header.at(156);
        const QByteArray data = tar.mid(offset + 512, size);
        offset += 512 + ((size + 511) / 512) * 512;
        if (type == 'x') { // pax extended header: "len path=value\n"
            for (const QByteArray &record : data.split('\n')) {
                const qsizetype eq = record.indexOf("path=");
                if (eq > 0)
                    longName = QString::fromUtf8(record.mid(eq + 5));
            }
            continue;
        }
        if (!longName.isEmpty())
            name = std::exchange(longName, QString());
        if (name.endsWith(u'/')) // directories are written as "dir/"
            name.chop(1);
        out.insert(name, data);
        if (types)
            types->insert(name, type);
    }
    return out;
}

} // namespace

class TestDockerLogs : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void demultiplex_data();
    void demultiplex();
    void recordedStream();
    void chunkedAtEveryOffset();
    void largeFrame();
    void fourGiBFrameIsNeverHeld();
    void tarBuilder();
    void tarBuilderRejectsBadPaths_data();
    void tarBuilderRejectsBadPaths();
};

void TestDockerLogs::demultiplex_data()
{
    QTest::addColumn<QByteArray>("stream");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QList<int>>("streams");
    QTest::addColumn<QByteArrayList>("payloads");

    QTest::newRow("empty") << QByteArray() << true << QList<int>{} << QByteArrayList{};
    QTest::newRow("one stdout") << frame(1, "hello\n") << true << QList<int>{1}
                                << QByteArrayList{"hello\n"};
    QTest::newRow("stdout and stderr") << frame(1, "a") + frame(2, "bb") + frame(1, "ccc") << true
                                       << QList<int>{1, 2, 1} << QByteArrayList{"a", "bb", "ccc"};
    QTest::newRow("stdin stream") << frame(0, "in") << true << QList<int>{0}
                                  << QByteArrayList{"in"};
    QTest::newRow("zero-length frame")
        << frame(1, "") + frame(2, "x") << true << QList<int>{1, 2} << QByteArrayList{"", "x"};
    QTest::newRow("binary payload") << frame(1, QByteArray("\0\1\2\xff", 4)) << true
                                    << QList<int>{1} << QByteArrayList{QByteArray("\0\1\2\xff", 4)};
    QTest::newRow("truncated header")
        << QByteArray("\1\0\0\0\0", 5) << false << QList<int>{} << QByteArrayList{};
    QTest::newRow("truncated payload")
        << frame(1, "hello").left(10) << false << QList<int>{} << QByteArrayList{};
    QTest::newRow("bad stream byte") << frame(3, "x") << false << QList<int>{} << QByteArrayList{};
    QTest::newRow("tty text is not multiplexed")
        << QByteArray("hello world\n") << false << QList<int>{} << QByteArrayList{};
}

void TestDockerLogs::demultiplex()
{
    QFETCH(QByteArray, stream);
    QFETCH(bool, ok);
    QFETCH(QList<int>, streams);
    QFETCH(QByteArrayList, payloads);

    const auto frames = DockerLogDemuxer::demultiplex(stream);
    QCOMPARE(frames.has_value(), ok);
    if (!ok) {
        QCOMPARE(frames.error().kind, Error::Kind::Decode);
        return;
    }
    QCOMPARE(frames->size(), streams.size());
    for (qsizetype i = 0; i < frames->size(); ++i) {
        QCOMPARE(int(frames->at(i).stream), streams.at(i));
        QCOMPARE(frames->at(i).data, payloads.at(i));
    }
}

void TestDockerLogs::recordedStream()
{
    // `sh -c 'echo out1; echo err1 >&2; printf partial; echo; echo out2'` on Docker 20.10.
    const auto frames =
        DockerLogDemuxer::demultiplex(testData(QStringLiteral("logs-multiplexed.bin")));
    QVERIFY(frames);
    QByteArray out;
    QByteArray err;
    for (const LogFrame &f : *frames)
        (f.stream == LogFrame::Stream::Stderr ? err : out) += f.data;
    QCOMPARE(out, QByteArray("out1\npartial\nout2\n"));
    QCOMPARE(err, QByteArray("err1\n"));
}

void TestDockerLogs::chunkedAtEveryOffset()
{
    const QByteArray stream = frame(1, "first line\n") + frame(2, "oops\n") + frame(1, "") +
                              frame(1, QByteArray(300, 'z'));
    const auto whole = DockerLogDemuxer::demultiplex(stream);
    QVERIFY(whole);
    for (qsizetype split = 0; split <= stream.size(); ++split) {
        for (qsizetype split2 = split; split2 <= stream.size(); split2 += 7) {
            DockerLogDemuxer demuxer;
            QList<LogFrame> frames;
            for (const QByteArray &chunk :
                 {stream.left(split), stream.mid(split, split2 - split), stream.mid(split2)}) {
                auto got = demuxer.feed(chunk);
                QVERIFY(got);
                frames += *got;
            }
            QCOMPARE(demuxer.pendingBytes(), 0);
            QCOMPARE(frames, *whole);
        }
    }
}

void TestDockerLogs::largeFrame()
{
    // Larger than a whole frame is held: handed on in pieces as it arrives, nothing buffered.
    QByteArray big(5 * 1024 * 1024 + 3, 'x');
    big[0] = 'A';
    big[big.size() - 1] = 'Z';
    const QByteArray stream = frame(2, big) + frame(1, "tail");
    DockerLogDemuxer demuxer;
    QList<LogFrame> frames;
    for (qsizetype offset = 0; offset < stream.size(); offset += 16384) {
        auto got = demuxer.feed(stream.mid(offset, 16384));
        QVERIFY(got);
        frames += *got;
        QVERIFY2(demuxer.pendingBytes() <= 8, qPrintable(QString::number(demuxer.pendingBytes())));
    }
    QVERIFY(!demuxer.insideFrame());
    QVERIFY(frames.size() > 2);
    QByteArray err;
    for (qsizetype i = 0; i + 1 < frames.size(); ++i) {
        QCOMPARE(frames.at(i).stream, LogFrame::Stream::Stderr);
        QVERIFY(frames.at(i).data.size() <= 16384);
        err += frames.at(i).data;
    }
    QCOMPARE(err.size(), big.size());
    QCOMPARE(err, big);
    QCOMPARE(frames.last().stream, LogFrame::Stream::Stdout);
    QCOMPARE(frames.last().data, QByteArray("tail"));
}

// A header may announce 4 GiB (issue 24 D.9): 64 MiB of such a frame go through without the
// demuxer holding more than a header, and the stream is known to have stopped inside the frame.
void TestDockerLogs::fourGiBFrameIsNeverHeld()
{
    QByteArray header(8, '\0');
    header[0] = 1;
    header[4] = header[5] = header[6] = header[7] = char(0xff);
    DockerLogDemuxer demuxer;
    auto first = demuxer.feed(header);
    QVERIFY(first);
    QVERIFY(first->isEmpty());
    const QByteArray chunk(64 * 1024, 'y');
    qint64 handedOn = 0;
    for (int i = 0; i < 1024; ++i) {
        auto got = demuxer.feed(chunk);
        QVERIFY(got);
        for (const LogFrame &f : std::as_const(*got))
            handedOn += f.data.size();
        QCOMPARE(demuxer.pendingBytes(), 0);
    }
    QCOMPARE(handedOn, qint64(64) * 1024 * 1024);
    QVERIFY(demuxer.insideFrame());
    const auto whole = DockerLogDemuxer::demultiplex(header + chunk);
    QVERIFY(!whole);
    QVERIFY2(whole.error().message.contains(QStringLiteral("ends inside a frame")),
             qPrintable(whole.error().toString()));
}

void TestDockerLogs::tarBuilder()
{
    TarArchiveBuilder builder;
    builder.addDirectory(QStringLiteral("etc/cluster"));
    builder.addFile(QStringLiteral("etc/cluster/hostfile"), "master1 slots=1\nworker1 slots=1\n");
    builder.addFile(QStringLiteral("./hello.txt"), "hello from the tar\n", 0600);
    builder.addFile(QStringLiteral("empty"), QByteArray());
    const QString longPath = QStringLiteral("deep/") + QString(120, u'd') + QStringLiteral("/file");
    builder.addFile(longPath, "long");
    const auto tar = builder.build();
    QVERIFY2(tar, qPrintable(tar ? QString() : tar.error().toString()));
    QCOMPARE(tar->size() % 512, 0);

    QMap<QString, char> types;
    const QMap<QString, QByteArray> entries = readTar(*tar, &types);
    QCOMPARE(entries.value(QStringLiteral("etc/cluster/hostfile")),
             QByteArray("master1 slots=1\nworker1 slots=1\n"));
    QCOMPARE(entries.value(QStringLiteral("hello.txt")), QByteArray("hello from the tar\n"));
    QVERIFY(entries.contains(QStringLiteral("empty")));
    QCOMPARE(entries.value(longPath), QByteArray("long"));
    QCOMPARE(types.value(QStringLiteral("etc/cluster")), '5');
    QCOMPARE(types.value(QStringLiteral("hello.txt")), '0');
}

void TestDockerLogs::tarBuilderRejectsBadPaths_data()
{
    QTest::addColumn<QString>("path");
    QTest::newRow("absolute") << "/etc/passwd";
    QTest::newRow("parent") << "a/../../b";
    QTest::newRow("empty") << "";
}

void TestDockerLogs::tarBuilderRejectsBadPaths()
{
    QFETCH(QString, path);
    TarArchiveBuilder builder;
    builder.addFile(path, "x");
    const auto tar = builder.build();
    QVERIFY(!tar);
    QCOMPARE(tar.error().kind, Error::Kind::Invalid);
}

QTEST_GUILESS_MAIN(TestDockerLogs)
#include "tst_dockerlogs.moc"
